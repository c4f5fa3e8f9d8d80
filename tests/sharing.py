"""How the suite shares the machine when pytest-xdist runs it on several workers (one per core).

The suite is mostly waiting on child processes that each use one core (`cpus=1` runs, stage
processes, installs), so on two cores two workers finish it in about half the time. Three rules
keep that honest:

1. **Files stay whole.** Every test is put in an `xdist_group` named after its module (unless it
   names a group of its own, to share a run-once fixture with another module), and the suite runs
   with `--dist loadgroup`: a module's fixtures are built once, on one worker.
2. **Tests that time things or use every core run alone.** A module or test marked `serial` takes
   this run's lock exclusively, every other test takes it shared, so a serial test starts only
   when the other worker is between tests and nothing starts beside it. A turnstile in front of
   the lock keeps a waiting serial test from being starved by the other worker's stream of
   shared ones.
3. **One-core runs get a core of their own.** A worker's `cpus=1` runs are started with that
   worker's own core as their whole affinity mask (the lanes of `test_every_backend.py` did this
   first), and each worker has its own `TMPDIR`, which names the default measurement lock
   (`conf/config.yaml`), so the two workers' tiny runs neither share a core nor wait for each
   other's lock. A test that checks the lock runs both sides in one test, under one `TMPDIR`.

Without xdist (`-p no:xdist`, `-n 0`) none of this applies and the suite runs as before.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path

from twinbench.machine import cpu

# The cores this worker may use, read before any test narrows a thread's mask.
_MASK_AT_START = sorted(os.sched_getaffinity(0))


def worker_index() -> int | None:
    """This xdist worker's number (gw0 -> 0), or None outside xdist."""
    name = os.environ.get("PYTEST_XDIST_WORKER", "")
    return int(name[2:]) if name.startswith("gw") else None


def worker_count() -> int:
    return int(os.environ.get("PYTEST_XDIST_WORKER_COUNT", "1"))


def home_core() -> int | None:
    """The core this worker's one-core runs are started on, or None (no xdist, or one worker:
    then runs pick their cores as users' runs do)."""
    index = worker_index()
    if index is None or worker_count() < 2:
        return None
    allowed = cpu.allowed_cpus()
    return allowed[index % len(allowed)]


def child_affinity(args: tuple[str, ...]) -> set[int] | None:
    """The affinity mask for a `run.py` child given its overrides: this worker's own core for a
    run that asks for exactly one core, else None (the child inherits the caller's mask, which a
    test that places its runs itself, as test_every_backend's lanes do, has already narrowed)."""
    core = home_core()
    if core is None or "cpus=1" not in args:
        return None
    if sorted(os.sched_getaffinity(0)) != _MASK_AT_START:
        return None
    return {core}


@contextlib.contextmanager
def machine_share(serial: bool, run_dir: Path) -> Iterator[None]:
    """Hold this run's test lock around one test: exclusively for a serial test, shared for any
    other. `run_dir` is the folder all workers of this run share (the parent of each worker's
    pytest basetemp, which pytest prunes). A no-op outside a multi-worker xdist run."""
    if worker_index() is None or worker_count() < 2:
        yield
        return
    turnstile_path, lock_path = run_dir / "tests.turnstile", run_dir / "tests.lock"
    with turnstile_path.open("a") as turnstile, lock_path.open("a") as lock:
        fcntl.flock(turnstile, fcntl.LOCK_EX)  # queue behind a serial test that is waiting
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if serial else fcntl.LOCK_SH)
        finally:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def own_tmpdir() -> Path | None:
    """Give this worker a TMPDIR of its own (see rule 3); returns it for removal at the end."""
    index = worker_index()
    if index is None or worker_count() < 2:
        return None
    own = Path(tempfile.mkdtemp(prefix=f"twinbench-tests-gw{index}-"))
    os.environ["TMPDIR"] = str(own)
    tempfile.tempdir = None  # gettempdir() caches its answer: read TMPDIR again
    return own


def remove_tmpdir(own: Path | None) -> None:
    if own is not None:
        shutil.rmtree(own, ignore_errors=True)
