"""Memory and CPU a run used, read before and after training (never inside a timed step)."""

from __future__ import annotations

import resource
from typing import Any

import psutil

from frameworks.timing import RunClock


def cpu_seconds() -> float:
    """User + system CPU time of this process so far, all its threads."""
    times = psutil.Process().cpu_times()
    return times.user + times.system


def usage(clock: RunClock) -> dict[str, Any]:
    """What the run cost the machine: peak resident memory, CPU time in all and in the epochs,
    and the cores the epochs kept busy on average (CPU seconds per wall second).

    Training's CPU time is read at the epochs' own boundaries, the spans their wall times cover.
    It once ran from before the framework's first trace to after the last epoch, against the
    epochs' wall time alone, and a short run read 20 to 33 busy cores on a 2-core machine.
    The epochs' training parts alone (validation left out, the spans train_times_s covers) have
    their own CPU time: a comparison of training parts' wall times compares that one. Against
    a loop that never validates, the whole epochs' CPU once read as 20-26% more CPU for
    twinbench on the rows that validate (docs/findings/2026-12-02-bare-loop-and-noise-floor.md).
    """
    busy = clock.busy_cores()
    return {
        # Linux reports ru_maxrss in KiB: the high-water mark of the whole process.
        "peak_rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "cpu_time_s": cpu_seconds(),
        "cpu_time_training_s": sum(e - s for s, e in clock.epoch_cpu_ns) / 1e9,
        "cpu_time_training_steps_s": sum(e - s for s, e in clock.train_cpu_ns) / 1e9,
        "busy_cores_training": busy,
        # What the training parts spent in the kernel: a share of their CPU time well above a
        # few percent is memory being faulted in, not the framework's arithmetic.
        "system_time_training_steps_s": sum(k for k, _ in clock.train_kernel) / 1e9,
        "minor_faults_training_steps": sum(f for _, f in clock.train_kernel),
    }
