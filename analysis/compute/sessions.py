"""Ratios over several sweeps, each sweep one value (twinbench.stats.sessions_ratio).

A sweep's runs share its minutes of the machine, and a host's phase moves all of them: pooled
with another sweep's runs as one sample, they claim more than they hold (the framework effect's
pairs disagreed with a held-out half of a day's sweeps in 12.9% of splits at 2 cores where a
valid interval disagrees in about 5%: docs/findings/2026-12-06-sessions-as-units.md). Here the
speed-up between two configurations is taken per sweep that measured both, and the interval
is over those sweeps.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from twinbench import stats


def by_sweep(values: Sequence[float], sweeps: Sequence[str | None]) -> dict[str, list[float]]:
    """The positive values of each named sweep (values outside any sweep are left out)."""
    out: dict[str, list[float]] = {}
    for value, sweep in zip(values, sweeps, strict=True):
        if sweep is not None and value > 0 and math.isfinite(value):
            out.setdefault(sweep, []).append(float(value))
    return out


def ratio_over_sweeps(
    a: Sequence[float],
    a_sweeps: Sequence[str | None] | None,
    b: Sequence[float],
    b_sweeps: Sequence[str | None] | None,
) -> tuple[float, float, float, int] | None:
    """median(a) / median(b) per sweep that measured both, then the sessions' interval over
    those sweeps: (ratio, low, high, sweeps); None where fewer than two sweeps measured both
    (the runs then are one sweep's, or unrelated, and the caller's own interval stands)."""
    if a_sweeps is None or b_sweeps is None:
        return None
    left, right = by_sweep(a, a_sweeps), by_sweep(b, b_sweeps)
    common = sorted(set(left) & set(right))
    if len(common) < 2:
        return None
    ratios = [float(np.median(left[s]) / np.median(right[s])) for s in common]
    s = stats.sessions_ratio(ratios, common)
    return s.median, s.ci_low, s.ci_high, len(common)
