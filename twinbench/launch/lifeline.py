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
import os
import signal
import sys
import threading
import time
from collections.abc import Iterator
from types import FrameType

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


def report_interrupted(exc: Interrupted) -> int:
    """The one line a stopped run prints; returns the shell's exit code for that signal."""
    print(
        f"twinbench: interrupted by {exc}: the run in progress was stopped and left no result; "
        "finished runs are kept (re-run the same command to resume)",
        file=sys.stderr,
        flush=True,
    )
    return 128 + exc.signum


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
