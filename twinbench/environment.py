"""Framework-neutral facts about the machine a run executes on, recorded with every result."""

from __future__ import annotations

import os
import platform
import socket
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from twinbench import cpu, machine_state

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


def machine_fingerprint(env: dict[str, Any]) -> str:
    """Identifies comparable hardware across result files: CPU model and logical core count."""
    return f"{env['cpu_model']} x{env['logical_cores']}"


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


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
    }
    env["fingerprint"] = machine_fingerprint(env)
    return env
