"""Sweeps on a real one-node Slurm cluster (tests/slurm_cluster.py): Hydra's submitit_slurm
launcher, each job inside the cores Slurm granted, the measurement lock across jobs, one merged
report, a job requeued in the middle of the sweep as preemption would, and a worker and a job
process killed outright (SIGKILL) in the middle of one.

Skipped, with the reason, where Slurm is not installed (`.ci/run` installs it) or not root.
"""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from datetime import datetime
from pathlib import Path

import pytest

from analysis.compute import pipeline
from analysis.load.table import runs_table
from tests import slurm_cluster
from twinbench.paths import REPO_ROOT

# Not serial (tests/sharing.py): its cluster's jobs take every core, but nothing here asserts a
# duration; the requeue and kill tests wait for a run to start, however long that takes. Alone, it
# left the other worker idle for its whole minute and for the test in flight before it.

# measure.warmup_steps=1: 3 steps leave 2 steady ones for the report's framework effect (the
# default warm-up of 10 leaves none)
TINY = ["model=mlp", "cpus=1", "epochs=1", "max_steps=3", "measure.warmup_steps=1"]
SUBMITIT = [
    "hydra/launcher=submitit_slurm",
    "hydra.launcher.cpus_per_task=1",
    "hydra.launcher.partition=debug",
    "hydra.launcher.timeout_min=10",
]
SWEEP_TIMEOUT_S = 400


@pytest.fixture(scope="module")
def slurm():
    yield from slurm_cluster.cluster()


def sweep(cluster: slurm_cluster.SlurmCluster, *args: str) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "run.py", "-m", *SUBMITIT, *TINY, *args],
        cwd=REPO_ROOT,
        env=cluster.env(),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )


def finish(proc: subprocess.Popen, cluster: slurm_cluster.SlurmCluster) -> str:
    out, _ = proc.communicate(timeout=SWEEP_TIMEOUT_S)
    # The daemons' logs say why Slurm ended a job (the sweep only sees its state).
    assert proc.returncode == 0, out[-4000:] + "\n" + cluster.logs()
    return out


def records(sweep_dir: Path) -> dict[str, dict]:
    return {
        str(p.parent.relative_to(sweep_dir)): json.loads(p.read_text())
        for p in sorted(sweep_dir.rglob("result.json"))
    }


def when(stamp: str) -> datetime:
    return datetime.fromisoformat(stamp)


def job_starts(sweep_dir: Path) -> list[datetime]:
    """When each Slurm job's process started, from submitit's own log lines."""
    starts = []
    for log in (sweep_dir / ".submitit").rglob("*_log.out"):
        found = re.search(r"submitit INFO \((\S+ \S+)\) - Starting with", log.read_text())
        if found:
            starts.append(datetime.strptime(found.group(1), "%Y-%m-%d %H:%M:%S,%f"))
    return starts


def test_a_sweep_of_both_frameworks_runs_on_slurm_inside_its_cores(slurm, tmp_path):
    sweep_dir = tmp_path / "sweep"
    out = finish(sweep(slurm, "backend=torch,tensorflow", f"hydra.sweep.dir={sweep_dir}"), slurm)

    assert "job states are read from squeue instead of sacct" in out
    assert "Bypassing sacct error" not in out and "accounting storage is disabled" not in out
    assert "plan: 2 run(s); 0 already finished, 2 to measure" in out
    runs = records(sweep_dir)
    assert len(runs) == 2 and {r["status"] for r in runs.values()} == {"ok"}
    job_ids = set()
    for record in runs.values():
        granted = record["environment"]["slurm"]["granted_cpus"]
        assert len(granted) == 1  # cpus_per_task=1: Slurm bound the job to one core
        assert set(record["affinity"]) <= set(granted)
        assert record["environment"]["slurm"]["restart_count"] == 0
        job_ids.add(record["environment"]["slurm"]["job_id"])
    assert len(job_ids) == 2

    # Two cores, one each: Slurm ran both jobs at once, and the lock made the measured runs
    # take turns (a run's clock starts after it holds the lock).
    first, second = sorted(runs.values(), key=lambda r: r["started"])
    assert when(second["started"]) >= when(first["finished"])
    assert max(job_starts(sweep_dir)) < when(first["finished"]).replace(tzinfo=None)

    # One report over both jobs' results, written by the sweep itself.
    assert (sweep_dir / "report.html").is_file()
    an = pipeline.analyze(runs_table([sweep_dir]), pipeline.Options(inputs=[sweep_dir]))
    assert len(an.framework) == 1 and an.runs["slurm_job_id"].nunique() == 2


def test_a_job_requeued_mid_sweep_keeps_finished_runs_and_measures_the_rest(slurm, tmp_path):
    """`scontrol requeue` while the job's second repeat is being measured: the first repeat is
    kept (not measured again), the second is measured by the job's next run, which the record
    says is a restart; nothing of the interrupted attempt is recorded."""
    sweep_dir = tmp_path / "sweep"
    proc = sweep(slurm, "backend=torch", "repeats=2", f"hydra.sweep.dir={sweep_dir}")
    try:
        deadline = time.monotonic() + SWEEP_TIMEOUT_S
        while not list(sweep_dir.rglob("repeat-1/worker.log")):
            assert proc.poll() is None and time.monotonic() < deadline, "repeat 1 never started"
            time.sleep(0.2)
        first = records(sweep_dir)
        assert len(first) == 1 and next(iter(first)).endswith("repeat-0")
        job_id = slurm.run("squeue", "-h", "-o", "%i").split()[0]
        slurm.run("scontrol", "requeue", job_id)
        slurm.release(job_id)
        finish(proc, slurm)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()

    runs = records(sweep_dir)
    assert [k.rsplit("/", 1)[1] for k in runs] == ["repeat-0", "repeat-1"]
    (repeat0, kept), (_, remeasured) = sorted(runs.items())
    assert kept == first[repeat0]  # finished before the requeue: untouched
    assert kept["environment"]["slurm"]["restart_count"] == 0
    assert remeasured["status"] == "ok"
    assert remeasured["environment"]["slurm"]["restart_count"] == 1
    assert remeasured["environment"]["slurm"]["job_id"] == job_id
    assert not list(sweep_dir.rglob("result.previous-*.json"))  # nothing measured twice
    job_logs = "".join(p.read_text() for p in (sweep_dir / ".submitit").rglob("*_log.out"))
    assert "already measured" in job_logs  # the restarted job skipped repeat 0
    an = pipeline.analyze(runs_table([sweep_dir]), pipeline.Options(inputs=[sweep_dir]))
    assert int(an.configs["n_ok"].sum()) == 2
    assert sorted(an.runs["slurm_restart_count"]) == [0, 1]


def worker_of(sweep_dir: Path, repeat: str, proc: subprocess.Popen) -> tuple[int, int]:
    """(pid, parent pid) of the worker measuring `repeat`, as soon as it has started."""
    deadline = time.monotonic() + SWEEP_TIMEOUT_S
    while True:
        found = subprocess.run(
            ["pgrep", "-f", f"twinbench.worker {sweep_dir}/.*/{repeat}$"],
            capture_output=True,
            text=True,
        ).stdout.split()
        if found:
            pid = int(found[0])
            ppid = int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1])
            return pid, ppid
        assert proc.poll() is None and time.monotonic() < deadline, f"{repeat} never started"
        time.sleep(0.1)


def test_killed_processes_mid_sweep_lose_nothing_finished_and_a_rerun_measures_the_rest(
    slurm, tmp_path
):
    """SIGKILL, as an OOM-killer or an agent would send it, of (a) the worker measuring repeat 1,
    then (b) the job's own submitit process while repeat 2 is measured. No handler runs on
    SIGKILL, so neither is requeued: (a) is recorded as repeat 1's failure and the job goes on;
    (b) ends the job FAILED in Slurm with repeat 2 unrecorded, and the sweep says so in one line.
    Re-running the same sweep keeps repeat 0, re-measures 1 (its failed record archived as the
    evidence) and measures 2."""
    sweep_dir = tmp_path / "sweep"
    args = ("backend=torch", "repeats=3", "max_steps=30", f"hydra.sweep.dir={sweep_dir}")
    proc = sweep(slurm, *args)
    try:
        worker, _ = worker_of(sweep_dir, "repeat-1", proc)
        os.kill(worker, signal.SIGKILL)
        _, job_process = worker_of(sweep_dir, "repeat-2", proc)
        assert b"submitit" in Path(f"/proc/{job_process}/cmdline").read_bytes()
        os.kill(job_process, signal.SIGKILL)
        out, _ = proc.communicate(timeout=SWEEP_TIMEOUT_S)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 1, out[-4000:]
    lost = re.search(
        r"twinbench: error: Slurm job (\d+) ended without a result \(state FAILED", out
    )
    assert lost and "Traceback" not in out, out[-4000:]
    assert (
        slurm.run("squeue", "-h", "-t", "all", "-j", lost.group(1), "-o", "%T").strip() == "FAILED"
    )
    first = by_repeat(records(sweep_dir))
    assert sorted(first) == ["repeat-0", "repeat-1"]  # repeat 2 left no result
    assert first["repeat-0"]["status"] == "ok"
    killed = first["repeat-1"]
    assert killed["status"] == "failed" and killed["error_kind"] == "crash"
    assert "killed by signal 9" in killed["error"]

    out = finish(sweep(slurm, *args), slurm)
    runs = by_repeat(records(sweep_dir))
    assert sorted(runs) == ["repeat-0", "repeat-1", "repeat-2"]
    assert runs["repeat-0"] == first["repeat-0"]  # finished before the kills: kept, not re-run
    job_logs = "".join(p.read_text() for p in (sweep_dir / ".submitit").rglob("*_log.out"))
    assert job_logs.count("already measured") == 1  # repeat 0, by the rerun's job
    assert {r["status"] for r in runs.values()} == {"ok"}
    assert {r["environment"]["slurm"]["job_id"] for r in runs.values()} - {lost.group(1)}
    archived = list(sweep_dir.rglob("result.previous-*.json"))
    assert [p.relative_to(p.parent.parent).as_posix() for p in archived] == [
        "repeat-1/result.previous-1.json"
    ]
    assert json.loads(archived[0].read_text()) == killed


def by_repeat(runs: dict[str, dict]) -> dict[str, dict]:
    return {key.rsplit("/", 1)[1]: record for key, record in runs.items()}
