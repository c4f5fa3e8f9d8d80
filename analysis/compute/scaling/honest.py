"""Prediction intervals for one new run, and where none can be honest (out of range).

The unit is the run (its total time), the law is fitted to runs, and the interval is for one new
run: log T(n) +- t(dof) * sqrt(se_curve(n)^2 + RSS / dof), the residual variance over runs
holding the run-to-run variation and whatever the law misses. No interval (`out of range`) with
fewer than MIN_CORE_COUNTS core counts, no residual degrees of freedom, or a core count more than
EXTRAPOLATION_LIMIT times beyond the measured ones. coverage.py checks it on held-out core counts.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from analysis.compute.scaling.laws import Fit
from analysis.compute.scaling.observations import observations

MIN_CORE_COUNTS = 3  # fewer: a two-parameter law meets every point, nothing to check it against
EXTRAPOLATION_LIMIT = 2.0  # predictions past 2x the measured core range are out of range
OUT_OF_RANGE = "out of range"


def run_observations(runs: pd.DataFrame) -> tuple[list[float], list[float]]:
    """(cores, time) with one observation per run: the sum of its epochs (or its train time)."""
    cores, times = [], []
    for _, run in runs.iterrows():
        _, t = observations(pd.DataFrame([run]))
        if t:
            cores.append(float(run["cpus"]))
            times.append(float(np.mean(t)))  # each epoch-derived value is epochs x epoch time
    return cores, times


def in_range(n: float, measured: Sequence[float]) -> bool:
    return min(measured) / EXTRAPOLATION_LIMIT <= n <= max(measured) * EXTRAPOLATION_LIMIT


def prediction_interval(
    f: Fit, n: float, measured: Sequence[float], confidence: float
) -> tuple[float, float, float] | None:
    """(time, low, high) for one new run at n cores, or None where no honest interval exists."""
    if not f.ok or len(set(measured)) < MIN_CORE_COUNTS or not in_range(n, measured):
        return None
    if f.dof <= 0 or not math.isfinite(f.rss):
        return None
    se_curve = float(f.log_time_se(n)[0])
    if not math.isfinite(se_curve):
        return None
    s2 = f.rss / f.dof
    q = f.t_quantile(confidence)
    lt = float(f.log_time(n))
    half = q * math.sqrt(se_curve**2 + s2)
    return math.exp(lt), math.exp(lt - half), math.exp(lt + half)
