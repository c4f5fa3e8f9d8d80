"""The parity stages after the reference run side by side, as many at once as there are cores,
and a failure or an interrupt stops them all (twinbench/parity/stages.py run_stage_processes).
Fake stages: tiny Python processes that log when they start and end."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from frameworks import allocator
from twinbench.parity.stages import StageJob, run_stage_processes

pytestmark = pytest.mark.serial  # it times how soon a stopped stage lets go (tests/sharing.py)

NAP_S = 1.0


def stage(name: str, log: Path, nap_s: float = NAP_S, fail: bool = False) -> StageJob:
    code = (
        "import sys, time; log = open(sys.argv[1], 'a'); "
        "import os; "
        f"log.write('start {name} %f %d\\n' % (time.time(), os.getpid())); log.flush(); "
        f"time.sleep({nap_s}); "
        f"log.write('end {name} %f 0\\n' % time.time()); log.flush(); "
        + (f"sys.stderr.write('{name} broke on purpose\\n'); sys.exit(3)" if fail else "")
    )
    return StageJob(name, ["mlp"], [sys.executable, "-c", code, str(log)])


def spans(log: Path) -> dict[str, list[float]]:
    found: dict[str, list[float]] = {}
    for line in log.read_text().splitlines():
        what, name, at, _ = line.split()
        found.setdefault(name, [0.0, float("inf")])[0 if what == "start" else 1] = float(at)
    return found


def alive(log: Path) -> list[str]:
    """The fake stages whose process still runs (a zombie, dead but not yet reaped, is not)."""
    running = []
    for line in log.read_text().splitlines():
        what, name, _, pid = line.split()
        status = Path(f"/proc/{pid}/status")
        if what == "start" and status.exists() and "State:\tZ" not in status.read_text():
            running.append(name)
    return running


def overlap(a: list[float], b: list[float]) -> bool:
    return a[0] < b[1] and b[0] < a[1]


def test_two_cores_run_two_stages_at_once_and_one_core_one(tmp_path):
    log = tmp_path / "log"
    run_stage_processes([stage(n, log) for n in ("a", "b", "c")], tmp_path, parallel=2)
    s = spans(log)
    assert overlap(s["a"], s["b"])  # started together
    assert not overlap(s["a"], s["c"]) and not overlap(s["b"], s["c"])  # c waited for a slot
    log.unlink()
    run_stage_processes([stage(n, log) for n in ("a", "b")], tmp_path, parallel=1)
    s = spans(log)
    assert not overlap(s["a"], s["b"])


def test_a_failed_stage_raises_with_its_stderr_and_stops_the_others(tmp_path):
    log = tmp_path / "log"
    jobs = [stage("slow", log, nap_s=30), stage("broken", log, nap_s=0.1, fail=True)]
    t0 = time.monotonic()
    with pytest.raises(RuntimeError, match=r"broken parity stage for mlp failed:\n.*on purpose"):
        run_stage_processes(jobs, tmp_path, parallel=2)
    assert time.monotonic() - t0 < 10  # the 30 s stage was not waited for
    assert alive(log) == []  # and is not left running either


def test_an_interrupt_while_waiting_kills_every_running_stage(tmp_path, monkeypatch):
    """What SIGTERM or Ctrl-C does (lifeline.Interrupted raised where the parent waits): here an
    exception raised into the waiting loop by the test's clock."""
    log = tmp_path / "log"
    jobs = [stage(n, log, nap_s=30) for n in ("a", "b")]

    class Stop(BaseException):
        pass

    real_sleep, t0 = time.sleep, time.monotonic()

    def sleep_then_stop(seconds: float) -> None:
        real_sleep(seconds)
        if time.monotonic() - t0 > 2:
            raise Stop

    monkeypatch.setattr("twinbench.parity.stages.time.sleep", sleep_then_stop)
    with pytest.raises(Stop):
        run_stage_processes(jobs, tmp_path, parallel=2)
    assert time.monotonic() - t0 < 10
    assert sorted(n for n in ("a", "b") if f"start {n}" in log.read_text()) == ["a", "b"]
    assert alive(log) == []  # both killed before their naps ended


def test_a_stage_starts_with_freed_memory_kept(tmp_path):
    """Stages measure nothing: glibc keeps their freed blocks (backend.allocator=retain's
    variables, read by the stage at its start), a few seconds less of page faults a set."""
    code = (
        "import json, sys; from frameworks import allocator; "
        "open(sys.argv[1], 'w').write(json.dumps(allocator.in_effect('retain')))"
    )
    out = tmp_path / "allocator.json"
    job = StageJob("probe", ["mlp"], [sys.executable, "-c", code, str(out)])
    run_stage_processes([job], tmp_path, parallel=1)
    found = json.loads(out.read_text())
    assert found["variables"] == allocator.VARIABLES["retain"]
    allocator.check(found)  # glibc kept its large block in the heap
