"""The Slurm helpers that need no cluster: squeue answers in sacct's format for submitit, and a
worker stopped by Slurm leaves its job without a record, and a job killed outright is one line."""

from __future__ import annotations

import signal
import subprocess

import pytest

from twinbench.launch import slurm


def fake_squeue(known: dict[str, str]):
    """squeue as it behaves: rows for known ids, an error if any asked-for id is unknown."""

    def run(cmd, **_kw):
        ids = cmd[cmd.index("-j") + 1].split(",")
        if any(i not in known for i in ids):
            return subprocess.CompletedProcess(cmd, 1, "", "Invalid job id specified")
        return subprocess.CompletedProcess(cmd, 0, "".join(known[i] for i in ids), "")

    return run


def test_squeue_rows_become_sacct_lines_with_states_submitit_knows(monkeypatch):
    monkeypatch.setattr(slurm.subprocess, "run", fake_squeue({
        "7": "7_0|RUNNING|vm\n7_1|CONFIGURING|vm\n",
        "9": "9|REQUEUE_HOLD|\n",
    }))  # fmt: skip
    assert slurm.sacct_lines(["7", "9"]) == [
        "JobID|State|NodeList",
        "7_0|RUNNING|vm",
        "7_1|RUNNING|vm",  # submitit would take CONFIGURING for finished
        "9|REQUEUED|",
    ]
    # An id squeue has forgotten does not hide the others.
    assert slurm.sacct_lines(["7", "404"])[1:] == ["7_0|RUNNING|vm", "7_1|RUNNING|vm"]


def test_a_worker_ended_by_sigterm_inside_slurm_ends_the_job_unrecorded(monkeypatch):
    monkeypatch.setenv("SLURM_JOB_ID", "12")
    with pytest.raises(SystemExit):
        slurm.leave_if_preempted(-signal.SIGTERM)
    slurm.leave_if_preempted(-signal.SIGKILL)  # a crash is the run's own failure: recorded
    slurm.leave_if_preempted(0)
    monkeypatch.delenv("SLURM_JOB_ID")
    slurm.leave_if_preempted(-signal.SIGTERM)  # outside Slurm: recorded as a failure as before


def test_a_job_killed_outright_is_one_line_naming_job_state_cause_and_logs():
    from submitit.core.utils import UncompletedJobError

    exc = UncompletedJobError(
        "Job 12 (task: 0) with path /sweep/.submitit/12/12_0_result.pkl\n"
        "has not produced any output (state: FAILED)\nError stream produced:\n"
        + "-" * 40
        + "\nsrun: error: vm: task 0: Killed\nsrun: Force Terminated StepId=12.0\n"
    )
    line = slurm.lost_job(exc)
    assert line is not None and "\n" not in line
    assert line.startswith(
        "Slurm job 12 ended without a result (state FAILED; srun: error: vm: task 0: Killed)"
    )
    assert "Re-run the same command" in line and "/sweep/.submitit/12)" in line
    # Anything else keeps its own traceback.
    assert slurm.lost_job(RuntimeError("Job 12 (task: 0) with path /x (state: FAILED)")) is None
    assert slurm.lost_job(UncompletedJobError("unexpected wording")) is None
