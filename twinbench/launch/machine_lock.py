"""One measured run at a time on this machine: a lock that no one can delete.

Parallel launchers (submitit local, joblib, Slurm arrays sharing a node) would otherwise run
workers side by side, and each would time the other's interference. The lock was an flock on a
file; deleting that file while a run measured let the next run create a new file, take a lock on
it and measure at the same time, and both were recorded as ok.

The lock is now a name in Linux's abstract Unix-socket namespace: it lives in the kernel, not in
a folder, so `rm` cannot remove it, a full or read-only disk cannot refuse it, and the kernel
frees it the moment its holder exits, however it exits (kill -9 included). `measure.lock_file`
still chooses the lock: its text is hashed into the name, so two setups (a test's temporary
lock, a user's default) stay apart, and nothing is written at that path.
"""

from __future__ import annotations

import contextlib
import contextvars
import errno
import hashlib
import socket
import sys
import time
from collections.abc import Callable, Iterator

NAMESPACE = "twinbench-measure"
POLL_S = 0.2  # how often a waiting run tries again; the holder's exit frees the name at once
WAITING = (
    "twinbench: waiting: another run is measuring on this machine (it holds the measurement "
    "lock, measure.lock_file); this one starts when it ends"
)


def lock_address(key: str) -> str:
    """The abstract socket name (a leading NUL byte) for a configured lock key."""
    digest = hashlib.sha256(key.encode()).hexdigest()[:32]
    return f"\0{NAMESPACE}:{digest}"


def announce_waiting() -> None:
    """Say once that this run waits for the lock: a second sweep started beside a first one sat
    silent behind its progress line until the first ended (found 2026-12-06)."""
    print(WAITING, file=sys.stderr, flush=True)


@contextlib.contextmanager
def measurement_lock(
    key: str | None, on_wait: Callable[[], None] | None = announce_waiting
) -> Iterator[None]:
    """Hold this machine's measurement lock named by `key` (None: no lock) while the block runs;
    `on_wait` is called once if another run holds it first (by default a line on stderr)."""
    if key is None or key in _held.get():
        yield
        return
    holder = socket.socket(
        socket.AF_UNIX, socket.SOCK_STREAM
    )  # close-on-exec: workers don't inherit it
    try:
        waited = False
        while True:
            try:
                holder.bind(lock_address(key))
                break
            except OSError as exc:
                if exc.errno != errno.EADDRINUSE:
                    raise
                if not waited and on_wait is not None:
                    on_wait()
                waited = True
                time.sleep(POLL_S)
        yield
    finally:
        holder.close()


# Keys whose lock this thread's caller already holds for it: the two halves of a pair that takes
# turns (twinbench/launch/turns.py) run at once under the one lock their sweep took for the pair.
_held: contextvars.ContextVar[frozenset[str]] = contextvars.ContextVar(
    "measurement_locks_held", default=frozenset()
)


@contextlib.contextmanager
def held_for(key: str | None) -> Iterator[None]:
    """Inside the block (on this thread), measurement_lock(key) is already held by the caller."""
    token = _held.set(_held.get() | {key}) if key else None
    try:
        yield
    finally:
        if token is not None:
            _held.reset(token)
