"""One series of runs (a workload, machine, backend and settings at several core counts) with
both laws fitted to it and the one chosen."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from analysis.compute.scaling.honest import run_observations
from analysis.compute.scaling.laws import LAWS, Fit, choose, fit
from analysis.compute.scaling.observations import observations
from analysis.compute.scaling.settings import Settings

SERIES = ["source", "workload", "machine", "backend", "settings", "settings_label"]
EXTRAPOLATED = "extrapolated"
MEASURED_RANGE = "within measured range"


@dataclass
class SeriesModel:
    key: dict[str, Any]
    measured_cores: list[float]
    reference_cpus: float
    fits: list[Fit]
    chosen: Fit | None
    # The law fitted with one observation per run: the source of the prediction intervals,
    # which hold run-to-run variation (honest.py); None: no interval is given.
    run_fit: Fit | None = None
    run_cores: list[float] = field(default_factory=list)

    @property
    def reference_time(self) -> float:
        """The chosen law's time on the fewest cores measured: speed-ups are relative to it
        (in the law's own terms, whatever metric the report's measured speed-ups use)."""
        assert self.chosen is not None
        return math.exp(float(self.chosen.log_time(self.reference_cpus)))

    @property
    def label(self) -> str:
        settings = self.key["settings_label"]
        return self.key["backend"] + ("" if settings == "default" else f" [{settings}]")

    def is_extrapolated(self, cores: float) -> bool:
        return not min(self.measured_cores) <= cores <= max(self.measured_cores)


def series_runs(hardware: pd.DataFrame, runs: pd.DataFrame):
    """Each hardware-effect series: its key (SERIES -> value), its rows of `hardware`, and its
    successful CPU runs."""
    ok = runs[(runs["status"] == "ok") & (runs["device"] == "cpu")]
    for key, series in hardware.groupby(SERIES, dropna=False, sort=False):
        key = dict(zip(SERIES, key, strict=True))
        yield (
            key,
            series,
            ok[
                (ok["source"] == key["source"])
                & (ok["machine"] == key["machine"])
                & (ok["workload"] == key["workload"])
                & ok["config_label"].isin(series["config_label"])
            ],
        )


def model_series(
    hardware: pd.DataFrame, runs: pd.DataFrame, settings: Settings | None = None
) -> list[SeriesModel]:
    """One SeriesModel per hardware-effect series, fitted on that series' successful runs."""
    if hardware.empty:
        return []
    out = []
    for key, series, chosen_runs in series_runs(hardware, runs):
        cores, times = observations(chosen_runs)
        fits = [fit(law, cores, times) for law in LAWS]
        run_cores, run_times = run_observations(chosen_runs)
        ref = series.sort_values("cpus").iloc[0]
        out.append(
            SeriesModel(
                key=key,
                measured_cores=sorted(float(c) for c in series["cpus"].unique()),
                reference_cpus=float(ref["cpus"]),
                fits=fits,
                chosen=choose(fits),
                run_fit=choose([fit(law, run_cores, run_times) for law in LAWS]),
                run_cores=run_cores,
            )
        )
    return out
