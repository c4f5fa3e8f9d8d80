"""Memory and CPU a run used, read before and after training (never inside a timed step)."""

from __future__ import annotations

import resource
from typing import Any

import psutil


def cpu_seconds() -> float:
    """User + system CPU time of this process so far, all its threads."""
    times = psutil.Process().cpu_times()
    return times.user + times.system


def usage(cpu_before_training_s: float, train_wall_s: float) -> dict[str, Any]:
    """What the run cost the machine: peak resident memory, CPU time in all and in training,
    and the cores training kept busy on average (CPU seconds per wall second)."""
    cpu_now = cpu_seconds()
    training = cpu_now - cpu_before_training_s
    return {
        # Linux reports ru_maxrss in KiB: the high-water mark of the whole process.
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "cpu_time_s": cpu_now,
        "cpu_time_training_s": training,
        "busy_cores_training": training / train_wall_s if train_wall_s > 0 else None,
    }
