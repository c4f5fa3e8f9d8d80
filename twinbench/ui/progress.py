"""Progress on long work, without touching what is timed.

Worker side: `EpochProgress` is a background thread that wakes once a second, reads how many step
timestamps the run clock holds and sends one sample (a line of JSON on stdout). Nothing is added
to the training loop or to a Keras callback, and the worker never draws anything (nor imports
rich): the steps are timed exactly as before (a wake-up costs microseconds of CPU once a second;
tests/test_progress.py checks what it touches).

Parent side: the worker's stdout comes through a pipe to `Relay`, which logs ordinary lines (the
terminal and run.log, through Hydra's logging). Status lines and samples are drawn by rich on a
terminal (twinbench/ui/live.py: a bar per epoch, and the sweep's job i/N where a sweep runs in this
process), redrawn only when a sample arrives. In a log or pipe a status line is logged as it
comes and epoch samples one every STATUS_EVERY_S seconds. `quiet=true` keeps both off the
terminal. run.log gets the ordinary lines and the status lines either way.
"""

from __future__ import annotations

import json
import logging
import sys
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TextIO

STATUS_MARK = "@@status "  # prefix of a transient status line from the worker
SAMPLE_MARK = "@@progress "  # prefix of an epoch sample (JSON) from the worker's progress thread
WAKE_S = 1.0  # how often the worker's progress thread looks at the clock
STATUS_EVERY_S = 15.0  # epoch samples kept in a non-terminal output: one this often
QUIET_LOGGERS = ("twinbench.worker", "twinbench.sweep")

log = logging.getLogger("twinbench.worker")


def duration(seconds: float) -> str:
    """'42s', '3m 05s', '1h 02m': a wait as people read it."""
    s = max(0, round(seconds))
    if s < 60:
        return f"{s}s"
    if s < 3600:
        return f"{s // 60}m {s % 60:02d}s"
    return f"{s // 3600}h {s % 3600 // 60:02d}m"


def status(text: str, out: TextIO | None = None) -> None:
    """A worker's transient status line (replaced by the next one)."""
    print(STATUS_MARK + text, file=out or sys.stdout, flush=True)


def send_sample(sample: dict[str, Any], out: TextIO | None = None) -> None:
    """The worker's epoch sample, for the parent to draw."""
    print(SAMPLE_MARK + json.dumps(sample), file=out or sys.stdout, flush=True)


def transfer_sender(label: str) -> Callable[[str, int, int | None, float], None]:
    """benchdata.download's progress hook for a worker: each report becomes a sample."""

    def send(filename: str, done: int, total: int | None, elapsed_s: float) -> None:
        send_sample(
            {"label": label, "download": filename, "done": done, "total": total,
             "elapsed_s": round(elapsed_s, 3)}
        )  # fmt: skip

    return send


def describe(sample: dict[str, Any]) -> str:
    """A sample as one plain line (logs, pipes): steps (or bytes) done, elapsed, time left."""
    if "download" in sample:
        done, total = sample["done"], sample["total"]
        of = f" of {total / 1e6:,.1f} MB ({done / total:.0%})" if total else " MB"
        return f"[{sample['label']}] downloading {sample['download']}: {done / 1e6:,.1f}{of}  " + (
            when(sample["elapsed_s"], done, total) if total else duration(sample["elapsed_s"])
        )
    head = f"[{sample['label']}] epoch {sample['epoch']}/{sample['epochs']}"
    done, total, elapsed = sample["done"], sample["total"], sample["elapsed_s"]
    if done >= total:
        return f"{head}  validating  {duration(elapsed)}"
    return f"{head}  step {done}/{total} ({done / total:.0%})  {when(elapsed, done, total)}"


def when(elapsed_s: float, done: int, total: int) -> str:
    """'2s, about 6s left': the time left extrapolated from the measured rate so far."""
    left = f", about {duration(elapsed_s / done * (total - done))} left" if done else ""
    return f"{duration(elapsed_s)}{left}"


class EpochProgress:
    """Steps done in the current epoch and the time it has taken, once a second.

    `clock` is the run's RunClock; it is only read (list lengths), from another thread. The
    sample goes to `say` (by default a JSON line on stdout); all formatting and drawing happen
    in the parent process.
    """

    def __init__(
        self,
        clock: Any,
        label: str,
        epochs: int,
        steps_per_epoch: int,
        say: Callable[[dict[str, Any]], None] = send_sample,
        wake_s: float = WAKE_S,
    ):
        self.clock, self.label, self.epochs = clock, label, epochs
        self.steps_per_epoch, self.say, self.wake_s = steps_per_epoch, say, wake_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="epoch-progress", daemon=True)

    def sample(self, now_ns: int) -> dict[str, Any] | None:
        epoch_ends = self.clock.step_end_ns
        if not epoch_ends or len(self.clock.epoch_end_ns) == len(epoch_ends):
            return None  # between epochs: the epoch line says it all
        total = max(1, self.steps_per_epoch // max(1, self.clock.steps_per_tick))
        return {
            "label": self.label,
            "epoch": len(epoch_ends),
            "epochs": self.epochs,
            "done": min(len(epoch_ends[-1]), total),
            "total": total,
            "elapsed_s": round((now_ns - self.clock.epoch_start_ns[-1]) / 1e9, 3),
        }

    def wake(self) -> None:
        """One wake-up: read the clock, send a sample. Runs on the progress thread only."""
        # The run's own clock where it has one: a run taking turns leaves its waits out of it.
        now = getattr(self.clock, "now", None)
        sample = self.sample(now() if callable(now) else time.perf_counter_ns())
        if sample is not None:
            self.say(sample)

    def _loop(self) -> None:
        while not self._stop.wait(self.wake_s):
            self.wake()

    def __enter__(self) -> EpochProgress:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


@dataclass
class SweepState:
    """Where the sweep running in this process stands; drawn beside each run's progress."""

    job: int  # 1-based number of the job now running
    jobs: int | None
    started_s: float  # wall clock (time.time) at the sweep's start
    name: str


current_sweep: SweepState | None = None


def sweep_line(state: SweepState, now_s: float) -> str:
    """'sweep: job 2/4: backend=torch  (1m 00s elapsed, about 3m 00s left)'."""
    done, elapsed = state.job - 1, now_s - state.started_s
    head = f"sweep: job {state.job}/{state.jobs or '?'}: {state.name}"
    timing = f"{duration(elapsed)} elapsed"
    if done and state.jobs:
        timing += f", about {duration(elapsed / done * (state.jobs - done))} left"
    return f"{head}  ({timing})"


def emit(text: str, logger: logging.Logger = log) -> None:
    """Log a line; print it where nothing configured logging (twinbench used as a library)."""
    if logging.getLogger().hasHandlers():
        logger.info(text)
    else:
        print(text, flush=True)


def emit_to_files(text: str, logger: logging.Logger = log) -> None:
    """Log a line to the log files alone (run.log), where the terminal shows it another way."""
    if not logger.isEnabledFor(logging.INFO):
        return
    record = logger.makeRecord(logger.name, logging.INFO, __file__, 0, text, None, None)
    for handler in logging.getLogger().handlers:
        if isinstance(handler, logging.FileHandler):
            handler.handle(record)


def cli_logging(quiet: bool, loggers: tuple[str, ...]) -> None:
    """Status lines of a command outside Hydra (parity, analysis) go through logging, to stdout
    as plain lines; `--quiet` keeps them off (results and errors still print). Where logging is
    already set up (inside a Hydra sweep, under pytest) its handlers are kept."""
    root = logging.getLogger()
    if not root.handlers:
        handler = logging.StreamHandler(sys.stdout)
        handler.setFormatter(logging.Formatter("%(message)s"))
        root.addHandler(handler)
        root.setLevel(logging.INFO)
    for name in loggers:
        logging.getLogger(name).setLevel(logging.WARNING if quiet else logging.NOTSET)


class _NotFrom(logging.Filter):
    def __init__(self, names: tuple[str, ...]):
        super().__init__()
        self.names = names

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.name.startswith(self.names)


def quiet_console(names: tuple[str, ...] = QUIET_LOGGERS) -> None:
    """quiet=true: progress and per-epoch lines leave the terminal; run.log keeps them. The
    first screen of a deciding sweep (twinbench/launch/screen.py) passes more logger names."""
    for handler in logging.getLogger().handlers:
        if not isinstance(handler, logging.FileHandler) and not any(
            isinstance(f, _NotFrom) and set(names) <= set(f.names) for f in handler.filters
        ):
            handler.addFilter(_NotFrom(names))


# True while a deciding sweep shows its first screen (twinbench/launch/screen.py): the runs'
# relays (twinbench/ui/live.py) draw no bars and print no status lines, as with quiet=true.
screen_quiet = False
