"""Framework-neutral facts about the machine a run executes on, recorded with every result."""

from __future__ import annotations

import os
import platform
import socket
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from twinbench.machine import cpu, machine_state

# ISA extensions that change which kernels oneDNN/MKL/Eigen dispatch to.
RELEVANT_ISA_FLAGS = (
    "sse4_2",
    "avx",
    "avx2",
    "fma",
    "f16c",
    "avx512f",
    "avx512bw",
    "avx512vl",
    "avx512_vnni",
    "avx512_bf16",
    "avx512_fp16",
    "amx_tile",
    "amx_bf16",
    "amx_int8",
    "asimd",
    "sve",
)


def _cpuinfo() -> tuple[str, set[str]]:
    model, flags = platform.processor() or platform.machine(), set()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            key = key.strip()
            if key == "model name" and value.strip():
                model = value.strip()
            elif key in ("flags", "Features") and not flags:
                flags = set(value.split())
    except OSError:
        pass
    return model, flags


def cpu_flags() -> set[str]:
    """The CPU's feature flags as /proc/cpuinfo lists them (empty where it cannot be read)."""
    return _cpuinfo()[1]


def machine_fingerprint(env: dict[str, Any]) -> str:
    """Identifies comparable hardware across result files: CPU model and logical core count."""
    return f"{env['cpu_model']} x{env['logical_cores']}"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


# Slurm's variables for the job a run belongs to (absent outside Slurm).
SLURM_VARIABLES = {
    "job_id": "SLURM_JOB_ID",
    "array_job_id": "SLURM_ARRAY_JOB_ID",
    "array_task_id": "SLURM_ARRAY_TASK_ID",
    "step_id": "SLURM_STEP_ID",
    "partition": "SLURM_JOB_PARTITION",
    "node_list": "SLURM_JOB_NODELIST",
    "cpus_per_task": "SLURM_CPUS_PER_TASK",
    "cpus_on_node": "SLURM_CPUS_ON_NODE",
    "job_cpus_per_node": "SLURM_JOB_CPUS_PER_NODE",
}


def slurm_allocation() -> dict[str, Any] | None:
    """The Slurm job this process runs in, and the cores Slurm granted it; None outside Slurm.

    `restart_count` > 0 means Slurm requeued the job (preemption, `scontrol requeue`) and this
    is a later attempt. `granted_cpus` is the affinity of the job step's task (SLURM_TASK_PID,
    the process Slurm started and bound): the worker pins itself to a subset of it.
    """
    if "SLURM_JOB_ID" not in os.environ:
        return None
    out: dict[str, Any] = {k: os.environ.get(v) for k, v in SLURM_VARIABLES.items()}
    out["restart_count"] = int(os.environ.get("SLURM_RESTART_COUNT") or 0)
    try:
        out["granted_cpus"] = sorted(os.sched_getaffinity(int(os.environ["SLURM_TASK_PID"])))
    except (KeyError, ValueError, OSError):  # no task pid, or that process has gone
        out["granted_cpus"] = None
    return out


def describe() -> dict[str, Any]:
    import psutil

    model, flags = _cpuinfo()
    env: dict[str, Any] = {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "cpu_model": model,
        "isa_flags": sorted(f for f in RELEVANT_ISA_FLAGS if f in flags),
        "logical_cores": os.cpu_count(),
        "physical_cores": psutil.cpu_count(logical=False),
        "allowed_cores": cpu.allowed_cpus(),
        "cgroup_cpu_quota": cpu.cgroup_cpu_quota(),
        "memory_gib": round(psutil.virtual_memory().total / 2**30, 1),
        "load_average": list(os.getloadavg()),
        "machine_state": machine_state.describe(),  # huge pages, governor, allocator
        "slurm": slurm_allocation(),
    }
    env["fingerprint"] = machine_fingerprint(env)
    return env
