"""CPU budget: which cores a run may use, and the thread variables native libraries read at load.

Everything here is framework-neutral and safe to call in the parent process.
"""

from __future__ import annotations

import os
from pathlib import Path

# Native thread pools read these once, when their library loads; they must be in os.environ
# before torch or tensorflow is imported.
THREAD_ENV_VARS = (
    "OMP_NUM_THREADS",
    "MKL_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "TF_NUM_INTRAOP_THREADS",
)
INTEROP_ENV_VARS = ("TF_NUM_INTEROP_THREADS",)


def allowed_cpus() -> list[int]:
    """Cores this process may run on (its affinity mask), sorted."""
    return sorted(os.sched_getaffinity(0))


def choose_cores(cpus: int) -> list[int]:
    """The first `cpus` cores of the allowed set: deterministic, so repeats use the same cores."""
    allowed = allowed_cpus()
    if not 1 <= cpus <= len(allowed):
        raise ValueError(f"cpus={cpus} is outside 1..{len(allowed)}")
    return allowed[:cpus]


def pin(cores: list[int]) -> list[int]:
    """Restrict this process (and threads it starts later) to `cores`; return the mask read back."""
    os.sched_setaffinity(0, cores)
    return sorted(os.sched_getaffinity(0))


def thread_environment(threads: int, interop_threads: int) -> dict[str, str]:
    env = {name: str(threads) for name in THREAD_ENV_VARS}
    env.update({name: str(interop_threads) for name in INTEROP_ENV_VARS})
    return env


def cgroup_cpu_quota() -> float | None:
    """CPUs granted by the cgroup quota (e.g. a container's --cpus), or None when unlimited.

    Thread pools size themselves from the affinity mask and never see this quota, so a quota
    below the thread count silently throttles a run: record it with every result.
    """
    v2 = Path("/sys/fs/cgroup/cpu.max")
    try:
        if v2.exists():
            quota, period = v2.read_text().split()[:2]
            return None if quota == "max" else int(quota) / int(period)
        v1 = Path("/sys/fs/cgroup/cpu/cpu.cfs_quota_us")
        if v1.exists():
            quota_us = int(v1.read_text())
            period_us = int(Path("/sys/fs/cgroup/cpu/cpu.cfs_period_us").read_text())
            return None if quota_us < 0 else quota_us / period_us
    except (OSError, ValueError):
        return None
    return None


def gpu_visible() -> bool:
    """Whether an NVIDIA GPU is visible, checked without importing a framework."""
    proc = Path("/proc/driver/nvidia/gpus")
    return (proc.is_dir() and any(proc.iterdir())) or Path("/dev/nvidia0").exists()
