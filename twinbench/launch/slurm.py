"""Slurm clusters without accounting: job states from squeue, so submitit stops warning.

submitit learns its jobs' states from `sacct`, which needs Slurm's accounting database. On a
cluster without one (`AccountingStorageType=accounting_storage/none`: small clusters, test
clusters) every poll fails and submitit logs a warning each time. When the sweep starts on such
a cluster, its watcher is pointed at `python -m twinbench.launch.slurm <job ids>`, which answers in
sacct's format from `squeue` (which keeps finished jobs for MinJobAge seconds); past that,
submitit reads its jobs' result files as it always does.
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

SACCT_HEADER = "JobID|State|NodeList"
NO_ACCOUNTING = "accounting_storage/none"
# squeue states sacct never reports, as the sacct state submitit knows: submitit counts any
# state outside its short list of unfinished ones as finished.
AS_SACCT = {
    "CONFIGURING": "RUNNING",
    "RESIZING": "RUNNING",
    "SIGNALING": "RUNNING",
    "STAGE_OUT": "COMPLETING",
    "REQUEUE_FED": "REQUEUED",
    "REQUEUE_HOLD": "REQUEUED",
}


def accounting_storage() -> str | None:
    """The cluster's AccountingStorageType, or None if scontrol cannot say."""
    try:
        out = subprocess.run(
            ["scontrol", "show", "config"], capture_output=True, text=True, timeout=30
        ).stdout
    except (OSError, subprocess.SubprocessError):
        return None
    for line in out.splitlines():
        key, _, value = line.partition("=")
        if key.strip() == "AccountingStorageType":
            return value.strip()
    return None


def _squeue_command(watcher: Any) -> list[str] | None:
    """Stands in for submitit's SlurmInfoWatcher._make_command: the same job ids, via squeue."""
    to_check = {x.split("_")[0] for x in watcher._registered - watcher._finished}
    if not to_check:
        return None
    return [sys.executable, "-m", "twinbench.launch.slurm", *sorted(to_check)]


def prepare(config: Any) -> str | None:
    """Before a submitit Slurm sweep: read job states from squeue if accounting is off.

    Returns the line to print, or None when nothing changed (another launcher, or accounting
    on). Never raises: the sweep runs either way, only noisier.
    """
    from omegaconf import OmegaConf

    target = str(OmegaConf.select(config, "hydra.launcher._target_", default="") or "")
    if not target.endswith("SlurmLauncher"):
        return None
    storage = accounting_storage()
    if storage != NO_ACCOUNTING:
        return None
    try:
        from submitit.slurm.slurm import SlurmInfoWatcher
    except ImportError:
        return None
    SlurmInfoWatcher._make_command = _squeue_command
    return (
        f"twinbench: this Slurm cluster keeps no accounting (AccountingStorageType={storage}): "
        "job states are read from squeue instead of sacct"
    )


def _squeue(job_ids: list[str]) -> list[str] | None:
    done = subprocess.run(
        ["squeue", "-h", "-r", "-t", "all", "-o", "%i|%T|%N", "-j", ",".join(job_ids)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return done.stdout.splitlines() if done.returncode == 0 else None


def leave_if_preempted(worker_rc: int) -> None:
    """In a Slurm job, a worker ended by SIGTERM means Slurm is taking the job down: requeued
    (`scontrol requeue`, preemption), timed out or cancelled. Exit the job at once, writing no
    result, so that a requeued job measures this run again (and skips the finished ones) instead
    of recording the interruption as the run's failure. submitit ignores SIGTERM in the job's
    own process, so without this the job would go on and could report a result first.
    """
    if worker_rc == -signal.SIGTERM and os.environ.get("SLURM_JOB_ID"):
        print(
            f"twinbench: Slurm is stopping job {os.environ['SLURM_JOB_ID']}: leaving the run "
            "unrecorded, to be measured when the job runs again",
            file=sys.stderr,
            flush=True,
        )
        raise SystemExit(128 + signal.SIGTERM)


def lost_job(exc: BaseException) -> str | None:
    """The one line for a sweep whose Slurm job ended without a result, or None for any other
    error.

    That is a job whose own process died by SIGKILL (an OOM-killer, an agent killing it): no
    handler runs, so neither submitit's checkpoint-and-requeue nor `leave_if_preempted` can
    requeue it, and Slurm requeues a failed job only where the administrator lists its exit
    code in RequeueExit. submitit then raises UncompletedJobError from Hydra's launcher, which
    would end the sweep with a traceback. The job's other runs are safe: finished ones are on
    disk, the interrupted one left no result, so re-running the sweep measures exactly it.
    """
    if type(exc).__name__ != "UncompletedJobError":
        return None
    text = str(exc)
    found = re.search(r"^Job (\S+) \(task: \S+\) with path (\S+)", text, re.M)
    state = re.search(r"\(state: ([^)]*)\)", text)
    if found is None:
        return None
    lines = [line.strip() for line in text.partition("-" * 40)[2].splitlines() if line.strip()]
    why = f"; {lines[0]}" if lines else ""
    return (
        f"Slurm job {found.group(1)} ended without a result (state "
        f"{state.group(1) if state else 'unknown'}{why}): its process was killed, so nothing "
        "could requeue it. Finished runs are kept and the run it was measuring left no result; "
        "other jobs of the sweep go on (squeue). Re-run the same command once they end to "
        f"measure what is missing (job logs: {Path(found.group(2)).parent})"
    )


def sacct_lines(job_ids: list[str]) -> list[str]:
    """`sacct -o JobID,State,NodeList --parsable2 -j ...` as far as squeue can answer it."""
    rows = _squeue(job_ids) if job_ids else []
    if rows is None:  # squeue refuses the whole query if it no longer knows one of the ids
        rows = [row for job_id in job_ids for row in (_squeue([job_id]) or [])]
    lines = [SACCT_HEADER]
    for row in rows:
        job_id, _, rest = row.strip().partition("|")
        state, _, nodes = rest.partition("|")
        if job_id:
            lines.append(f"{job_id}|{AS_SACCT.get(state, state)}|{nodes}")
    return lines


def main(argv: list[str]) -> int:
    print("\n".join(sacct_lines(argv)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
