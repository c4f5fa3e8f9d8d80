"""What a speed state is: a window of steps is slow when its median lies more than
SLOW_THRESHOLD above the fastest level, and a state change is a run of such windows. Shared by
the steps command (benchmarks/speed_states.py) and the machine probe (benchmarks/machine_probe.py).
"""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from typing import Any

SLOW_THRESHOLD = 0.15  # a state change worth a name: the modes seen here differ by 30-45%


def fast_level(window_medians: Sequence[float]) -> float:
    """The fast state's level: the 25th percentile of the window medians."""
    return statistics.quantiles(window_medians, n=4, method="inclusive")[0]


def slow_windows(window_medians: Sequence[float], threshold: float = SLOW_THRESHOLD) -> list[bool]:
    level = fast_level(window_medians)
    return [m > level * (1 + threshold) for m in window_medians]


def windows(values: Sequence[float], size: int) -> list[float]:
    """Medians of consecutive windows of `size` values (a short tail is dropped)."""
    return [statistics.median(values[i : i + size]) for i in range(0, len(values) - size + 1, size)]


def state_changes(
    epochs: Sequence[Sequence[float]], size: int, threshold: float = SLOW_THRESHOLD
) -> dict[str, Any]:
    """Fast/slow changes between consecutive windows, inside epochs and at epoch boundaries.

    The first window of the first epoch (compilation, cold caches) is left out."""
    per_epoch = [windows(e, size) for e in epochs]
    if per_epoch and per_epoch[0]:
        per_epoch[0] = per_epoch[0][1:]
    flat = [m for e in per_epoch for m in e]
    if len(flat) < 4:
        return {"windows": len(flat), "inside": 0, "boundary": 0, "slow_share": None}
    slow = slow_windows(flat, threshold)
    boundaries, at = set(), 0
    for e in per_epoch[:-1]:
        at += len(e)
        boundaries.add(at)  # a change between window at-1 and at crosses an epoch boundary
    inside = boundary = 0
    for i in range(1, len(slow)):
        if slow[i] != slow[i - 1]:
            if i in boundaries:
                boundary += 1
            else:
                inside += 1
    return {
        "windows": len(flat),
        "fast_level": fast_level(flat),
        "slow_share": sum(slow) / len(slow),
        "inside": inside,
        "boundary": boundary,
        "window_medians": per_epoch,
    }


# ------------------------------------------------------------------------- twinbench's steps
