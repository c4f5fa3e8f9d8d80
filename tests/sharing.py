"""How the suite shares the machine when pytest-xdist runs it on several workers (one per core).

The suite is mostly waiting on child processes that each use one core (`cpus=1` runs, stage
processes, installs), so on two cores two workers finish it in about half the time. Three rules
keep that honest:

1. **Files stay whole.** The scheduler (`FilesAndTheirSharers`) hands out whole test files, and
   the files that read one session-scoped fixture (`SHARED_FIXTURES`) as one unit: a module's
   fixtures, and a shared fixture, are built once, on one worker. (xdist's own `loadgroup` marks
   would say the same per test, but pytest 9.2 computes node ids, and xdist 3.8 tags the group
   onto a node id by assignment, which no longer takes: every test would be scheduled alone.)
2. **Tests that time things or use every core run alone.** A module or test marked `serial` takes
   this run's lock exclusively, every other test takes it shared, so a serial test starts only
   when the other worker is between tests and nothing starts beside it. A turnstile in front of
   the lock keeps a waiting serial test from being starved by the other worker's stream of
   shared ones. The files whose every test is serial (`SERIAL_FILES`) are one scheduling unit,
   and a worker keeps its exclusive hold from one serial test to the next: the other worker's
   test in flight is waited for once per stretch of serial tests, not once per test (the 25
   tests of those files had each waited for it).
3. **One-core runs get a core of their own.** A worker's `cpus=1` runs are started with that
   worker's own core as their whole affinity mask (the lanes of `test_every_backend.py` did this
   first), and each worker has its own `TMPDIR`, which names the default measurement lock
   (`conf/config.yaml`), so the two workers' tiny runs neither share a core nor wait for each
   other's lock. A test that checks the lock runs both sides in one test, under one `TMPDIR`.
4. **XLA compiles a program once per run of the suite.** Every Keras-on-JAX process the suite
   starts (parity stages, tiny runs, sweeps) compiles its programs through XLA, about half of
   such a process's time on CPU; the same models recur from test to test. The suite points
   JAX's persistent compilation cache at a folder of its own (`share_jax_compilations`), so
   a program compiled by one process is loaded by the next. Behaviour is unchanged: the cache
   holds the executable XLA would have built, keyed by the program, the flags and the jaxlib.
   What changes is only a run's first-step seconds, which no test compares with a figure.
   Measured runs outside the suite keep JAX's default (no persistent cache).

Without xdist (`-p no:xdist`, `-n 0`) none of this applies and the suite runs as before.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import shutil
import sys
import tempfile
import time
import xml.etree.ElementTree as ElementTree
from collections.abc import Iterator
from pathlib import Path
from typing import IO

from xdist.scheduler import LoadScopeScheduling

from twinbench.machine import cpu

# session fixture -> the test files that read it; each group's files go to one worker together.
SHARED_FIXTURES = {
    "every_backend_sweeps": (
        "tests/test_every_backend.py", "tests/test_image_models.py", "tests/test_text_models.py"
    ),
    "tiny_sweep": (
        "tests/test_budget.py", "tests/test_profile.py", "tests/test_runs.py",
        "tests/test_settings.py", "tests/test_redteam.py",
    ),
    "installed_site": ("tests/test_installed_copy.py", "tests/test_packaging.py"),
}  # fmt: skip
# The files whose every test is `serial`, run back to back on one worker (rule 2); collection
# checks this list against the markers (`serial_files_mismatch`).
SERIAL_FILES = (
    "tests/test_machine_lock.py", "tests/test_probe_lifeline.py", "tests/test_stage_processes.py",
    "tests/test_stop_signals.py", "tests/test_subcommand_signals.py",
)  # fmt: skip
SERIAL_UNIT = "serial files"
_UNITS = {**SHARED_FIXTURES, SERIAL_UNIT: SERIAL_FILES}
_UNIT_OF_FILE = {path: name for name, paths in _UNITS.items() for path in paths}


# Seconds each test file took, summed over its tests (setup, call and teardown), in the run that
# wrote this file: `python -m tests.sharing JUNIT_XML` rewrites it from a run's --junitxml.
FILE_SECONDS_PATH = Path(__file__).with_name("file_seconds.json")
UNKNOWN_FILE_S = 5.0  # a file the table does not know yet (a new one): near the median file


def file_seconds() -> dict[str, float]:
    try:
        return json.loads(FILE_SECONDS_PATH.read_text())["seconds"]
    except (OSError, ValueError, KeyError):
        return {}


class FilesAndTheirSharers(LoadScopeScheduling):
    """xdist's scope scheduling with a test file as the scope, and the files of one
    `SHARED_FIXTURES` entry, or all of `SERIAL_FILES`, as one scope, handed out longest first
    (the seconds each file took last time, `file_seconds.json`): a long file started last would
    leave the other worker idle at the end, and longest-first keeps that tail to the length of a
    short file."""

    def _split_scope(self, nodeid: str) -> str:
        path = nodeid.split("::", 1)[0]
        return _UNIT_OF_FILE.get(path, path)

    def _assign_work_unit(self, node) -> None:
        if not getattr(self, "_longest_first", False):
            self._longest_first = True
            seconds = file_seconds()

            def weight(unit: str) -> float:
                files = _UNITS.get(unit, (unit,))
                return sum(seconds.get(f, UNKNOWN_FILE_S) for f in files)

            for unit in sorted(self.workqueue, key=weight, reverse=True):
                self.workqueue.move_to_end(unit)
        super()._assign_work_unit(node)


def unlisted_sharers(items) -> list[str]:
    """Test files that read a shared fixture without being listed with it in SHARED_FIXTURES:
    their worker would build the fixture a second time."""
    found = set()
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        for fixture in SHARED_FIXTURES.keys() & set(getattr(item, "fixturenames", ())):
            if path not in SHARED_FIXTURES[fixture]:
                found.add(f"{path} reads {fixture}")
    return sorted(found)


def serial_files_mismatch(items) -> list[str]:
    """Where `SERIAL_FILES` and the test modules disagree: a listed file without a module-wide
    `pytestmark = pytest.mark.serial`, or a file with one that is not listed. Read from each
    module, so a run of a few picked tests is checked the same way as a whole run."""
    found = set()
    for item in items:
        path = item.nodeid.split("::", 1)[0]
        marks = getattr(getattr(item, "module", None), "pytestmark", [])
        marks = marks if isinstance(marks, list) else [marks]
        serial = any(mark.name == "serial" for mark in marks)
        if serial != (path in SERIAL_FILES):
            found.add(f"{path} is listed but not serial as a whole" if not serial else
                      f"{path} is serial as a whole (pytestmark) but not listed")  # fmt: skip
    return sorted(found)


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


# The lock file of an exclusive hold that this worker passes from one serial test to the next.
_kept_exclusive: IO | None = None


@contextlib.contextmanager
def machine_share(serial: bool, run_dir: Path, keep: bool = False) -> Iterator[None]:
    """Hold this run's test lock around one test: exclusively for a serial test, shared for any
    other. `run_dir` is the folder all workers of this run share (the parent of each worker's
    pytest basetemp, which pytest prunes). With `keep` (this serial test is followed by another
    on this worker), the exclusive hold passes to the next test instead of being released. A
    no-op outside a multi-worker xdist run."""
    global _kept_exclusive
    if worker_index() is None or worker_count() < 2:
        yield
        return
    lock, _kept_exclusive = _kept_exclusive, None
    if lock is not None and not serial:  # the serial test that kept it was the last one
        _release(lock)
        lock = None
    if lock is None:
        lock = _acquire(run_dir, serial)
    try:
        yield
    finally:
        if serial and keep:
            _kept_exclusive = lock
        else:
            _release(lock)


def _acquire(run_dir: Path, serial: bool) -> IO:
    """The run's lock, held (exclusively for a serial test), once through the turnstile."""
    lock = (run_dir / "tests.lock").open("a")
    with (run_dir / "tests.turnstile").open("a") as turnstile:
        asked = time.monotonic()
        fcntl.flock(turnstile, fcntl.LOCK_EX)  # queue behind a serial test that is waiting
        try:
            fcntl.flock(lock, fcntl.LOCK_EX if serial else fcntl.LOCK_SH)
        finally:
            fcntl.flock(turnstile, fcntl.LOCK_UN)
    _count_wait(run_dir, time.monotonic() - asked)
    return lock


def _release(lock: IO) -> None:
    fcntl.flock(lock, fcntl.LOCK_UN)
    lock.close()


WAIT_FILE = "tests.waited-{worker}"  # in the run's folder: seconds this worker sat at the lock


def _count_wait(run_dir: Path, seconds: float) -> None:
    path = run_dir / WAIT_FILE.format(worker=os.environ.get("PYTEST_XDIST_WORKER", ""))
    before = float(path.read_text()) if path.exists() else 0.0
    path.write_text(f"{before + seconds:.3f}")


def waits(run_dir: Path) -> dict[str, float]:
    """worker -> seconds it waited for the test lock in this run (for the summary line)."""
    found = {}
    for path in sorted(run_dir.glob(WAIT_FILE.format(worker="*"))):
        found[path.name.rsplit("-", 1)[1]] = float(path.read_text())
    return found


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


# JAX's own configuration variables (jax/_src/config.py): the cache's folder, and every program
# cached however quick its compile or small its executable (the defaults skip those under 1 s,
# most of a tiny model's programs).
JAX_CACHE_ENV = {
    "JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS": "0",
    "JAX_PERSISTENT_CACHE_MIN_ENTRY_SIZE_BYTES": "0",
}


def share_jax_compilations() -> Path | None:
    """Point this run's processes at one new JAX compilation cache (rule 4); returns the folder
    for removal at the end, or None where the environment already names a cache (a
    contributor's own, left as it is). Called in the controller before the workers start, so
    they and every process they start inherit it."""
    if "JAX_COMPILATION_CACHE_DIR" in os.environ:
        return None
    folder = Path(tempfile.mkdtemp(prefix="twinbench-tests-xla-"))
    os.environ.update({"JAX_COMPILATION_CACHE_DIR": str(folder), **JAX_CACHE_ENV})
    return folder


def seconds_per_file(junit_xml: Path) -> dict[str, float]:
    """file -> its tests' summed time in a --junitxml report (setup, call and teardown)."""
    totals: dict[str, float] = {}
    for case in ElementTree.parse(junit_xml).iter("testcase"):
        path = "tests/" + case.get("classname", "").split(".")[1] + ".py"
        totals[path] = totals.get(path, 0.0) + float(case.get("time", 0))
    return {path: round(s, 1) for path, s in sorted(totals.items())}


if __name__ == "__main__":  # python -m tests.sharing JUNIT_XML [WHAT RAN IT]
    measured = seconds_per_file(Path(sys.argv[1]))
    FILE_SECONDS_PATH.write_text(
        json.dumps({"measured": " ".join(sys.argv[2:]), "seconds": measured}, indent=1) + "\n"
    )
    print(f"{FILE_SECONDS_PATH}: {len(measured)} files, {sum(measured.values()):.0f} s in all")
