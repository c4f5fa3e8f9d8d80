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


# The widest vector ISA names the code path kernels take; the first of these a CPU has is named.
WIDEST_ISA = (
    "amx_bf16",
    "avx512_fp16",
    "avx512_bf16",
    "avx512f",
    "avx2",
    "avx",
    "sse4_2",
    "sve",
    "asimd",
)
# /proc/cpuinfo's keys for a CPU's family and model: x86's, then Arm's.
CPU_ID_KEYS = (
    ("cpu family", "family"),
    ("model", "model"),
    ("CPU implementer", "implementer"),
    ("CPU part", "part"),
)


def parse_cpuinfo(text: str) -> tuple[str | None, set[str], str | None]:
    """The model name, feature flags and family/model of the first processor /proc/cpuinfo
    lists (x86's `cpu family` and `model`, Arm's `CPU implementer` and `CPU part`)."""
    model, flags, ids = None, set(), {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        key, value = key.strip(), value.strip()
        if key == "model name" and value and model is None:
            model = value
        elif key in ("flags", "Features") and not flags:
            flags = set(value.split())
        elif key in dict(CPU_ID_KEYS) and value and key not in ids:
            ids[key] = value
    cpu_id = " ".join(f"{label} {ids[key]}" for key, label in CPU_ID_KEYS if key in ids)
    return model, flags, cpu_id or None


def _cpuinfo() -> tuple[str, set[str], str | None]:
    try:
        model, flags, cpu_id = parse_cpuinfo(Path("/proc/cpuinfo").read_text())
    except OSError:
        model, flags, cpu_id = None, set(), None
    return model or platform.processor() or platform.machine(), flags, cpu_id


def cpu_flags() -> set[str]:
    """The CPU's feature flags as /proc/cpuinfo lists them (empty where it cannot be read)."""
    return _cpuinfo()[1]


def widest_isa(flags: list[str] | set[str]) -> str | None:
    """The widest vector ISA among `flags` (WIDEST_ISA's order), None where it names none."""
    return next((isa for isa in WIDEST_ISA if isa in flags), None)


def machine_fingerprint(env: dict[str, Any]) -> str:
    """Identifies comparable hardware across result files and caches: the CPU's model name, its
    family and model, its widest vector ISA, and the logical core count.

    The name alone is not enough in a virtual machine: this project's Zen 3 (family 25 model 1,
    AVX2) and its AVX-512 host (family 25 model 17) both read "AMD EPYC", and their float32
    peaks differ twice over; a cloud's Intel guests read "Intel(R) Xeon(R) Processor" whatever
    the generation. A hypervisor that hides AVX-512 from the same CPU changes the kernels too.
    """
    details = [d for d in (env.get("cpu_id"), widest_isa(env.get("isa_flags") or [])) if d]
    name = f"{env['cpu_model']} ({', '.join(details)})" if details else env["cpu_model"]
    return f"{name} x{env['logical_cores']}"


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

    model, flags, cpu_id = _cpuinfo()
    env: dict[str, Any] = {
        "hostname": socket.gethostname(),
        "platform": platform.platform(),
        "python": sys.version.split()[0],
        "cpu_model": model,
        "cpu_id": cpu_id,
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
