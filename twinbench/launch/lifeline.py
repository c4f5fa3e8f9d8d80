"""A worker never outlives the process that started it, and a stopped run says so in one line.

Two mechanisms, because either alone leaves a gap:
- the worker asks the kernel for SIGKILL when its parent dies (Linux PR_SET_PDEATHSIG), which
  covers `kill -9` of the parent, where no handler of the parent's can run;
- the parent starts the worker in its own process group (its own session) and, on SIGTERM,
  SIGINT or SIGHUP, kills that whole group before it exits, so nothing the worker started
  survives either, and a terminal's Ctrl-C reaches only the parent, which reports it once.
"""

from __future__ import annotations

import contextlib
import ctypes
import functools
import logging
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from types import FrameType
from typing import NoReturn

PARENT_PID_ENV = "TWINBENCH_PARENT_PID"
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)


class Interrupted(BaseException):
    """The parent was asked to stop. A BaseException, like KeyboardInterrupt, so that no
    `except Exception` on the way (Hydra's job runner among them) swallows it."""

    def __init__(self, signum: int) -> None:
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


def stop_on_signals() -> None:
    """Parent side: turn SIGTERM, SIGINT and SIGHUP into Interrupted, raised where it waits."""

    def handler(signum: int, frame: FrameType | None) -> None:
        raise Interrupted(signum)

    for signum in STOP_SIGNALS:
        signal.signal(signum, handler)


# The folder a sweep writes to, once it has started (hydra_plugins' sweeper sets it): its
# default name holds the start time, so "the same command" alone would start a new sweep.
sweep_dir: str | None = None


def report_interrupted(exc: Interrupted) -> int:
    """The one line a stopped run prints; returns the shell's exit code for that signal."""
    again = "re-run the same command"
    if sweep_dir is not None:
        again += f" with hydra.sweep.dir={sweep_dir}"
    print(
        f"twinbench: interrupted by {exc}: the run in progress was stopped and left no result; "
        f"finished runs are kept ({again} to resume)",
        file=sys.stderr,
        flush=True,
    )
    return 128 + exc.signum


# How long the processes a stopped command started get to end on SIGTERM (a run.py child kills
# its worker's group and exits at once) before they are killed outright.
STOP_GRACE_S = 5.0


def stop_descendants(procs: list, grace_s: float = STOP_GRACE_S) -> None:
    """SIGTERM to `procs` (psutil processes), SIGKILL to any still alive `grace_s` later."""
    import psutil

    for proc in procs:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.terminate()
    _, alive = psutil.wait_procs(procs, timeout=grace_s)
    for proc in alive:
        with contextlib.suppress(psutil.NoSuchProcess):
            proc.kill()
    psutil.wait_procs(alive, timeout=grace_s)


def stops_on_signals(prog: str, kept: str) -> Callable[[Callable[..., int]], Callable[..., int]]:
    """A long-running command stops on SIGTERM, SIGINT or SIGHUP as `run` does: within seconds,
    with every process it started, in one line that says `kept` (what stays), exit 128 + n.

    Without it `curves` ignored a SIGINT (a shell's `&` starts a job with SIGINT ignored, and
    only run.py put a handler back) and trained on for two minutes, and a SIGTERM killed it
    alone, its run.py child training on (issue 45). The processes it started are read when the
    signal arrives, before anything on the way out kills one of them: a run.py child killed by
    subprocess.run's own clean-up would orphan its worker out of this process's tree."""

    def wrap(command: Callable[..., int]) -> Callable[..., int]:
        @functools.wraps(command)
        def guarded(*args, **kwargs) -> int:
            if threading.current_thread() is not threading.main_thread():
                return command(*args, **kwargs)  # handlers belong to the main thread
            import psutil

            # What was running before the command started is not its to stop (a caller's own).
            before = {p.pid for p in psutil.Process().children(recursive=True)}
            started: list = []

            def read_started() -> None:
                with contextlib.suppress(psutil.Error):
                    procs = psutil.Process().children(recursive=True)
                    started.extend(p for p in procs if p.pid not in before)

            def handler(signum: int, frame: FrameType | None) -> None:
                read_started()
                raise Interrupted(signum)

            previous = {signum: signal.signal(signum, handler) for signum in STOP_SIGNALS}
            try:
                return command(*args, **kwargs)
            except Interrupted as exc:
                for signum in STOP_SIGNALS:  # a second Ctrl-C must not cut the clean-up short
                    signal.signal(signum, signal.SIG_IGN)
                read_started()  # and any started since
                stop_descendants(list({p.pid: p for p in started}.values()))
                print(
                    f"{prog}: interrupted by {exc}: the work in progress was stopped, with every "
                    f"process it started; {kept}",
                    file=sys.stderr,
                    flush=True,
                )
                return 128 + exc.signum
            finally:
                for signum, before in previous.items():
                    signal.signal(signum, signal.SIG_DFL if before is None else before)

        return guarded

    return wrap


def child_env(env: dict[str, str]) -> dict[str, str]:
    """The environment for a process this one starts and that must die with it (a probe the
    worker runs): the child's die_with_parent then checks against this process, not ours."""
    return {**env, PARENT_PID_ENV: str(os.getpid())}


@contextlib.contextmanager
def suspend_together(pgid: int, pauses: list[float]) -> Iterator[None]:
    """Ctrl-Z stops the worker with the parent, and `fg` resumes both.

    The worker runs in its own session, so a terminal's SIGTSTP reached only the parent while
    the worker kept training, unwatched. Here the parent stops the worker's whole group, then
    itself; on SIGCONT it resumes the group and appends the pause's length to `pauses` (the
    paused time is inside the worker's clock: the run is flagged, not silently timed)."""
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers belong to the main thread; a launcher's thread cannot take them
        return

    def on_stop(signum: int, frame: FrameType | None) -> None:
        start = time.monotonic()
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGSTOP)
        # SIGSTOP, not a re-raised SIGTSTP: the kernel discards SIGTSTP in a process group with
        # no parent outside it (a CI job, a setsid launcher), and the parent would run on.
        os.kill(os.getpid(), signal.SIGSTOP)  # stops here; returns once resumed (SIGCONT)
        with contextlib.suppress(ProcessLookupError):
            os.killpg(pgid, signal.SIGCONT)
        pauses.append(time.monotonic() - start)

    previous = signal.signal(signal.SIGTSTP, on_stop)
    try:
        yield
    finally:
        signal.signal(signal.SIGTSTP, previous)


def die_with_parent() -> None:
    """Worker side, first thing: be killed by the kernel when the parent dies.

    If the parent died before this call took effect, the worker is already orphaned and leaves.
    """
    try:
        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
    except (OSError, AttributeError):  # not Linux: the parent's group kill is what remains
        pass
    expected = os.environ.get(PARENT_PID_ENV)
    if expected and os.getppid() != int(expected):
        os._exit(128 + signal.SIGKILL)


def leave_without_teardown(code: int) -> NoReturn:
    """Worker side, last thing, once its output is written: flush and exit at once.

    The interpreter's own teardown frees every module of the framework before the process ends:
    0.75-0.8 s of a torch worker and 1.0-1.1 s of a TensorFlow one (Zen 5, 2026-12-06), after
    the record was written and outside anything measured. Every run of a sweep and every worker
    pair of a deciding comparison waited for it. What a worker leaves is written before this
    (records atomically, logs flushed here); its only threads are daemons."""
    logging.shutdown()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a closed pipe: nothing left to say
            stream.flush()
    # and C's own buffers, which exit() would flush: a library's verbose lines (oneDNN, MKL)
    # are printed there, not through Python
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None).fflush(None)
    os._exit(code)
