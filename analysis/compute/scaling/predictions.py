"""Predictions from a series' chosen law: time with its interval, speed-up and cost at given core
counts (labelled extrapolated outside the measured ones), and the cheapest and fastest of them.

The interval is for one new run and holds run-to-run variation (honest.py); where none can be
honest (fewer than 3 core counts, more than 2x beyond the measured ones) the row is labelled
`out of range`, keeps the law's point value and has no interval, and never counts as cheapest
or fastest."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from analysis.compute.pricing import PriceTable
from analysis.compute.scaling.honest import MIN_CORE_COUNTS, OUT_OF_RANGE, in_range
from analysis.compute.scaling.honest import prediction_interval as interval
from analysis.compute.scaling.series import EXTRAPOLATED, MEASURED_RANGE, SERIES, SeriesModel


def predict(
    s: SeriesModel, cores: Sequence[float], confidence: float, price: PriceTable | None
) -> pd.DataFrame:
    """Time (and cost, with a price table) at `cores` from the series' chosen law."""
    f = s.chosen
    if f is None:
        return pd.DataFrame()
    n = np.asarray(cores, dtype=float)
    rows = []
    for c, lt in zip(n, f.log_time(n), strict=True):
        rate = price.per_second("cpu", c) if price is not None else None
        time = math.exp(lt)
        given = interval(s.run_fit, c, s.run_cores, confidence) if s.run_fit else None
        low, high = (given[1], given[2]) if given else (math.nan, math.nan)
        rows.append(
            {
                **s.key,
                "law": f.law.name,
                "cpus": c,
                "predicted_time": time,
                "predicted_time_low": low,
                "predicted_time_high": high,
                "predicted_speedup": s.reference_time / time,
                "predicted_cost": time * rate if rate is not None else math.nan,
                "predicted_cost_low": low * rate if rate is not None else math.nan,
                "predicted_cost_high": high * rate if rate is not None else math.nan,
                "range": _range(s, c),
            }
        )
    return pd.DataFrame(rows)


def _range(s: SeriesModel, cores: float) -> str:
    if len(set(s.measured_cores)) < MIN_CORE_COUNTS or not in_range(cores, s.measured_cores):
        return OUT_OF_RANGE
    return EXTRAPOLATED if s.is_extrapolated(cores) else MEASURED_RANGE


def optimal_table(predictions: pd.DataFrame) -> pd.DataFrame:
    """Per series: the core count with the lowest predicted cost, and with the lowest time
    (among the predictions in range: an out-of-range optimum is no finding)."""
    if not predictions.empty:
        predictions = predictions[predictions["range"] != OUT_OF_RANGE]
    if predictions.empty:
        return pd.DataFrame()
    rows = []
    for key, p in predictions.groupby(SERIES, dropna=False, sort=False):
        row = dict(zip(SERIES, key, strict=True))
        fastest = p.loc[p["predicted_time"].idxmin()]
        row.update(
            fastest_cpus=fastest["cpus"],
            fastest_time=fastest["predicted_time"],
            fastest_range=fastest["range"],
        )
        if p["predicted_cost"].notna().any():
            cheapest = p.loc[p["predicted_cost"].idxmin()]
            row.update(
                cheapest_cpus=cheapest["cpus"],
                cheapest_cost=cheapest["predicted_cost"],
                cheapest_cost_low=cheapest["predicted_cost_low"],
                cheapest_cost_high=cheapest["predicted_cost_high"],
                cheapest_time=cheapest["predicted_time"],
                cheapest_range=cheapest["range"],
            )
        rows.append(row)
    return pd.DataFrame(rows)
