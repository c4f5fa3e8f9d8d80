"""Predictions from a series' chosen law: time with its interval, speed-up and cost at given core
counts (labelled extrapolated outside the measured ones), and the cheapest and fastest of them."""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np
import pandas as pd

from analysis.compute.pricing import PriceTable
from analysis.compute.scaling.series import EXTRAPOLATED, MEASURED_RANGE, SERIES, SeriesModel


def predict(
    s: SeriesModel, cores: Sequence[float], confidence: float, price: PriceTable | None
) -> pd.DataFrame:
    """Time (and cost, with a price table) at `cores` from the series' chosen law."""
    f = s.chosen
    if f is None:
        return pd.DataFrame()
    n = np.asarray(cores, dtype=float)
    log_t, se = f.log_time(n), f.log_time_se(n)
    q = f.t_quantile(confidence)
    rows = []
    for c, lt, e in zip(n, log_t, se, strict=True):
        rate = price.per_second("cpu", c) if price is not None else None
        time, low, high = math.exp(lt), math.exp(lt - q * e), math.exp(lt + q * e)
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
                "range": EXTRAPOLATED if s.is_extrapolated(c) else MEASURED_RANGE,
            }
        )
    return pd.DataFrame(rows)


def optimal_table(predictions: pd.DataFrame) -> pd.DataFrame:
    """Per series: the core count with the lowest predicted cost, and with the lowest time."""
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
