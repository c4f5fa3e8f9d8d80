"""Sweeps that survive: repeats, resume, failure isolation, time limits, one run at a time."""

from __future__ import annotations

import itertools
import json
import multiprocessing
import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from twinbench.launch import runner as launch
from twinbench.paths import REPO_ROOT
from twinbench.result import results

from .conftest import read_result, run_cli

# measure.warmup_steps=1: 3 steps leave 2 steady ones (the default warm-up of 10 leaves none)
TINY = (
    "backend=torch",
    "cpus=1",
    "epochs=1",
    "max_steps=3",
    "measure.peak_probe=false",
    "measure.warmup_steps=1",
    "report=false",  # report.html is walked once, by test_runs' multirun test
)


def _results(root: Path) -> dict[str, dict]:
    return {
        str(p.parent.relative_to(root)): read_result(p.parent) for p in root.rglob("result.json")
    }


def test_repeats_run_in_separate_processes_and_are_summarised(tmp_path):
    proc = run_cli(*TINY, "repeats=3", f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 0, proc.stderr[-2000:]
    records = [read_result(tmp_path / f"repeat-{i}") for i in range(3)]
    assert [r["repeat"] for r in records] == [0, 1, 2]
    assert len({r["run_key"] for r in records}) == 1
    summary = json.loads((tmp_path / "summary.json").read_text())
    medians = sorted(r["timing"]["steady_step_s"]["median"] for r in records)
    assert summary["steady_step_s"]["median"] == pytest.approx(medians[1])
    assert (summary["steady_step_s"]["ci_low"], summary["steady_step_s"]["ci_high"]) == (
        pytest.approx(medians[0]),
        pytest.approx(medians[2]),
    )
    assert "over 3 repeats" in proc.stdout


def test_a_sweep_goes_on_past_failures_and_ends_non_zero_with_a_list(tmp_path, monkeypatch):
    # 1e30 makes the loss overflow to NaN; data=real fails in the worker, where its files are
    # fetched: none is cached and the mirror is a loopback port bound but not listening (an
    # unknown optimizer name failed there too until the config checks refused it up front).
    closed = socket.socket()
    closed.bind(("127.0.0.1", 0))
    monkeypatch.setenv("TWINBENCH_DATA_DIR", str(tmp_path / "no-files"))
    monkeypatch.setenv("TWINBENCH_DATA_MIRROR", f"http://127.0.0.1:{closed.getsockname()[1]}")
    with closed:
        proc = run_cli(
            "-m",
            *TINY,
            "model.optimizer.lr=1e30,0.001",
            "data=synthetic,real",
            f"hydra.sweep.dir={tmp_path}",
        )
    assert proc.returncode == 1
    records = _results(tmp_path)
    assert len(records) == 4
    by_status = {}
    for r in records.values():
        by_status.setdefault(r["status"], []).append(r)
    assert len(by_status["ok"]) == 1
    kinds = sorted(r["error_kind"] for r in by_status["failed"])
    assert kinds == ["exception", "exception", "non_finite_loss"]
    assert "3 of 4 runs failed" in proc.stdout
    assert "training loss became nan" in proc.stdout
    assert "mnist.npz is not in" in proc.stdout and "could not be downloaded" in proc.stdout


# Over 60 s on the Zen 3 under the other worker's load (about 66 s; 40-48 s alone): a sweep
# interrupted mid-run, then the rerun that must skip what finished and redo the rest.
def test_resume_skips_finished_runs_and_redoes_the_interrupted_one(tmp_path):
    args = [sys.executable, "run.py", "-m", *TINY, "seed=0,1,2", f"hydra.sweep.dir={tmp_path}"]
    sweep = subprocess.Popen(
        args,
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:  # kill the whole sweep while its second job is running
        deadline = time.monotonic() + 120
        while not list(tmp_path.glob("*seed=1*/worker.log")):
            assert time.monotonic() < deadline, "the sweep never reached its second job"
            time.sleep(0.05)
    finally:
        os.killpg(sweep.pid, signal.SIGKILL)
        sweep.wait()
    first = next(tmp_path.glob("*seed=0*/result.json"))
    finished = first.read_text()
    assert not list(tmp_path.glob("*seed=1*/result.json")), (
        "a killed run left a complete-looking file"
    )

    proc = subprocess.run(args, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert first.read_text() == finished  # not measured again
    assert proc.stdout.count("resume:") == 1
    records = _results(tmp_path)
    assert len(records) == 3 and all(r["status"] == "ok" for r in records.values())

    forced = run_cli("-m", *TINY, "seed=0", "force=true", f"hydra.sweep.dir={tmp_path}")
    assert forced.returncode == 0 and "resume:" not in forced.stdout
    archived = json.loads(next(tmp_path.glob("*seed=0*/result.previous-1.json")).read_text())
    # kept as it was, except that it now names its own archived steps (test_redteam.py)
    assert archived == {**json.loads(finished), "steps_file": "steps.previous-1.json"}


def test_a_changed_configuration_is_not_mistaken_for_a_finished_one(compose):
    a, b = compose("cpus=1"), compose("cpus=1", "model.optimizer.lr=0.01")
    assert results.run_key(a) != results.run_key(b)
    assert results.run_key(a) == results.run_key({**compose("cpus=1"), "repeats": 5})


def _write_many(path: str, worker: int) -> None:
    for i in range(200):
        results.write_atomic(Path(path), {"worker": worker, "i": i, "pad": "x" * 5000})


def test_concurrent_writers_never_leave_a_partial_file(tmp_path):
    path = tmp_path / "result.json"
    results.write_atomic(path, {"worker": -1, "i": 0, "pad": ""})
    ctx = multiprocessing.get_context("spawn")
    writers = [ctx.Process(target=_write_many, args=(str(path), w)) for w in range(3)]
    for w in writers:
        w.start()
    reads = 0
    while any(w.is_alive() for w in writers):
        record = json.loads(path.read_text())  # raises on a torn or partial file
        assert set(record) == {"worker", "i", "pad"}
        reads += 1
    for w in writers:
        w.join()
        assert w.exitcode == 0
    assert reads > 0 and not list(tmp_path.glob(".*.tmp"))


@pytest.mark.serial  # it times the run (tests/sharing.py); next to the other serial test here,
# so that the worker's exclusive hold passes from one to the other (tests/sharing.py, rule 2)
def test_a_run_past_its_time_limit_is_killed_and_recorded(tmp_path):
    start = time.monotonic()
    proc = run_cli(*TINY[:3], "epochs=100", "time_limit_s=3", f"hydra.run.dir={tmp_path}")
    assert time.monotonic() - start < 60
    assert proc.returncode == 1
    r = read_result(tmp_path)
    assert r["status"] == "failed" and r["error_kind"] == "time_limit"
    assert "time limit of 3 s" in proc.stderr


def _hold_lock(lock: str, log: str) -> None:
    with launch.measurement_lock(lock):
        start = time.monotonic()
        time.sleep(0.5)
        with open(log, "a") as f:
            f.write(f"{start} {time.monotonic()}\n")


@pytest.mark.serial  # it times the run (tests/sharing.py)
def test_the_measurement_lock_runs_one_measurement_at_a_time(tmp_path):
    lock, log = str(tmp_path / "lock"), str(tmp_path / "log")
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_hold_lock, args=(lock, log)) for _ in range(3)]
    for p in procs:
        p.start()
    for p in procs:
        p.join()
    spans = sorted(tuple(map(float, line.split())) for line in Path(log).read_text().splitlines())
    assert len(spans) == 3
    for (_, end), (start, _) in itertools.pairwise(spans):
        assert start >= end


@pytest.mark.slow
def test_submitit_local_launcher_runs_each_job_in_its_own_process_one_at_a_time(tmp_path):
    proc = run_cli(
        "-m",
        "hydra/launcher=submitit_local",
        "backend=torch,tensorflow",
        *TINY[1:],
        f"hydra.sweep.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    records = sorted(_results(tmp_path).values(), key=lambda r: r["started"])
    assert [r["status"] for r in records] == ["ok", "ok"]
    assert {r["backend"] for r in records} == {"torch", "tensorflow"}
    # submitit starts both jobs at once; the measurement lock makes them take turns.
    assert records[0]["finished"] <= records[1]["started"]
    assert (tmp_path / ".submitit").is_dir()
