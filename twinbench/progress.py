"""Progress on long work, without touching what is timed.

Worker side: `EpochProgress` is a background thread that wakes once a second, reads how many step
timestamps the run clock holds and prints one status line. Nothing is added to the training loop
or to a Keras callback: the steps are timed exactly as before (a wake-up costs microseconds of
CPU once a second; tests/test_progress.py measures it).

Parent side: the worker's stdout comes through a pipe to `relay`, which logs ordinary lines (the
terminal and run.log, through Hydra's logging) and shows status lines as one line rewritten in
place on a terminal, or every STATUS_EVERY_S seconds in a log or pipe. `quiet=true` keeps both
off the terminal; run.log still gets the ordinary lines.
"""

from __future__ import annotations

import logging
import sys
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any, TextIO

STATUS_MARK = "@@status "  # prefix of a transient status line from the worker
WAKE_S = 1.0  # how often the worker's progress thread looks at the clock
STATUS_EVERY_S = 15.0  # status lines kept in a non-terminal output: one this often
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


class EpochProgress:
    """Steps done in the current epoch, its rate and the time left, once a second.

    `clock` is the run's RunClock; it is only read (list lengths), from another thread.
    """

    def __init__(
        self,
        clock: Any,
        label: str,
        epochs: int,
        steps_per_epoch: int,
        say: Callable[[str], None] = status,
        wake_s: float = WAKE_S,
    ):
        self.clock, self.label, self.epochs = clock, label, epochs
        self.steps_per_epoch, self.say, self.wake_s = steps_per_epoch, say, wake_s
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, name="epoch-progress", daemon=True)

    def line(self, now_ns: int) -> str | None:
        epoch_ends = self.clock.step_end_ns
        if not epoch_ends or len(self.clock.epoch_end_ns) == len(epoch_ends):
            return None  # between epochs: the epoch line says it all
        epoch = len(epoch_ends)
        ticks = len(epoch_ends[-1])
        total = max(1, self.steps_per_epoch // max(1, self.clock.steps_per_tick))
        elapsed = (now_ns - self.clock.epoch_start_ns[-1]) / 1e9
        head = f"[{self.label}] epoch {epoch}/{self.epochs}"
        if ticks >= total:
            return f"{head}  validating  {duration(elapsed)}"
        left = elapsed / ticks * (total - ticks) if ticks else None
        eta = f", about {duration(left)} left" if left is not None else ""
        return f"{head}  step {ticks}/{total} ({ticks / total:.0%})  {duration(elapsed)}{eta}"

    def _loop(self) -> None:
        while not self._stop.wait(self.wake_s):
            text = self.line(time.perf_counter_ns())
            if text is not None:
                self.say(text)

    def __enter__(self) -> EpochProgress:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


class Relay:
    """Parent side: the worker's stdout lines to logging, status lines to one terminal line."""

    def __init__(self, out: TextIO | None = None, quiet: bool = False):
        self.out = out or sys.stdout
        self.quiet = quiet
        self.tty = bool(getattr(self.out, "isatty", lambda: False)())
        self._status_shown = False
        self._last_status_s = 0.0

    def _clear(self) -> None:
        if self._status_shown:
            self.out.write("\r\x1b[K")
            self.out.flush()
            self._status_shown = False

    def line(self, raw: str) -> None:
        text = raw.rstrip("\n")
        if text.startswith(STATUS_MARK):
            text = text[len(STATUS_MARK) :]
            if self.quiet:
                return
            if self.tty:
                self.out.write("\r\x1b[K" + text)
                self.out.flush()
                self._status_shown = True
            elif time.monotonic() - self._last_status_s >= STATUS_EVERY_S:
                self._last_status_s = time.monotonic()
                emit(text)
            return
        self._clear()
        emit(text)

    def run(self, lines: Iterable[str]) -> None:
        for raw in lines:
            self.line(raw)
        self._clear()


def emit(text: str, logger: logging.Logger = log) -> None:
    """Log a line; print it where nothing configured logging (twinbench used as a library)."""
    if logging.getLogger().hasHandlers():
        logger.info(text)
    else:
        print(text, flush=True)


class _NotFrom(logging.Filter):
    def __init__(self, names: tuple[str, ...]):
        super().__init__()
        self.names = names

    def filter(self, record: logging.LogRecord) -> bool:
        return not record.name.startswith(self.names)


def quiet_console() -> None:
    """quiet=true: progress and per-epoch lines leave the terminal; run.log keeps them."""
    for handler in logging.getLogger().handlers:
        if not isinstance(handler, logging.FileHandler) and not any(
            isinstance(f, _NotFrom) for f in handler.filters
        ):
            handler.addFilter(_NotFrom(QUIET_LOGGERS))
