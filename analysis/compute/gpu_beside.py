"""The 2017 question, today: each GPU run beside the CPU core counts of the same workload and
framework, in time and in cost (issue 42 item 4).

The hardware effect (effects.hardware) scales CPU runs with cores on one machine; a GPU run comes
from another machine, so it is set beside them here instead: per workload and backend, every GPU
configuration against every CPU core count measured, with the GPU's speed-up (CPU time / GPU
time, with its interval where both sides have repeats) and both costs at the report's price
table (the GPU row prices a whole GPU instance per hour; a CPU run its cores' share).
A workload is the model at one length (analysis/load/table.py): a short GPU run is never set
beside a full-length CPU run.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from analysis.compute.pricing import PriceTable
from twinbench import stats

KEY = ["source", "workload", "backend"]


def _speedup(cpu: list[float], gpu: list[float]) -> tuple[float, float, float]:
    """CPU time / GPU time, with the ratio's interval where both sides have repeats."""
    ratio, lo, hi = stats.ratio_ci(cpu, gpu)
    return ratio, math.nan if lo is None else lo, math.nan if hi is None else hi


def _cost(price: PriceTable | None, device: str, cpus: Any, seconds: float) -> float:
    rate = price.per_second(device, cpus) if price is not None else None
    return seconds * rate if rate is not None else math.nan


def table(summary: pd.DataFrame, prices: dict[str, PriceTable]) -> pd.DataFrame:
    """One row per (GPU configuration, CPU core count) of one workload and backend; empty where
    no workload has both a GPU run and a CPU run."""
    ok = summary[summary["n_ok"] > 0]
    rows: list[dict[str, Any]] = []
    for (source, workload, backend), group in ok.groupby(KEY, dropna=False, sort=False):
        gpus, cpus = group[group["device"] == "cuda"], group[group["device"] == "cpu"]
        if gpus.empty or cpus.empty:
            continue
        price = prices.get(source)
        for _, gpu in gpus.iterrows():
            gpu_cost = _cost(price, "cuda", None, gpu["time"])
            for _, cpu in cpus.sort_values("cpus").iterrows():
                speedup, lo, hi = _speedup(cpu["samples"], gpu["samples"])
                cpu_cost = _cost(price, "cpu", cpu["cpus"], cpu["time"])
                rows.append(
                    {
                        "source": source,
                        "workload": workload,
                        "backend": backend,
                        "gpu_config": gpu["config_label"],
                        "cpu_config": cpu["config_label"],
                        "cpus": cpu["cpus"],
                        "gpu_time": gpu["time"],
                        "cpu_time": cpu["time"],
                        "gpu_speedup": speedup,
                        "gpu_speedup_ci_low": lo,
                        "gpu_speedup_ci_high": hi,
                        "gpu_cost": gpu_cost,
                        "cpu_cost": cpu_cost,
                        # Above 1 the GPU is the cheaper way to run this workload.
                        "cpu_over_gpu_cost": cpu_cost / gpu_cost if gpu_cost else math.nan,
                        "pricing": price.name if price is not None else None,
                        "price_date": price.date if price is not None else None,
                        "gpu_priced_as": price.gpu_description if price is not None else None,
                    }
                )
    return pd.DataFrame(rows)
