"""A series' observations: (cores, time) pairs, one per epoch (epoch time x epochs: a run's
time is the sum of its epochs) or one per run without epoch times."""

from __future__ import annotations

import json
import math
from typing import Any

import numpy as np
import pandas as pd


def observations(runs: pd.DataFrame) -> tuple[list[float], list[float]]:
    """(cores, time) pairs: one per epoch (epoch time x epochs) or one per run without them."""
    cores: list[float] = []
    times: list[float] = []
    for _, run in runs.iterrows():
        epochs = _epoch_times(run.get("epoch_times_s"))
        values = [t * len(epochs) for t in epochs] if len(epochs) > 1 else []
        if not values and _positive(run.get("train_time_s")):
            values = [float(run["train_time_s"])]
        for value in values:
            if _positive(value):
                cores.append(float(run["cpus"]))
                times.append(value)
    return cores, times


def _positive(value: Any) -> bool:
    try:
        return math.isfinite(float(value)) and float(value) > 0
    except (TypeError, ValueError):
        return False


def _epoch_times(value: Any) -> list[float]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return []
    if isinstance(value, list | tuple | np.ndarray):
        return [float(v) for v in value if _positive(v)]
    return []
