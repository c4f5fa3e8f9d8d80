"""The scaling model over a report: every hardware-effect series fitted, its fits tabled, and
time and cost predicted at the configured core counts."""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from analysis.compute.pricing import PriceTable
from analysis.compute.scaling.predictions import optimal_table, predict
from analysis.compute.scaling.series import SeriesModel, model_series
from analysis.compute.scaling.settings import Settings, load_settings


@dataclass
class ScalingModel:
    settings: Settings
    series: list[SeriesModel] = field(default_factory=list)
    fits: pd.DataFrame = field(default_factory=pd.DataFrame)
    predictions: pd.DataFrame = field(default_factory=pd.DataFrame)
    optimal: pd.DataFrame = field(default_factory=pd.DataFrame)

    def for_workload(self, source: str, workload: str) -> list[SeriesModel]:
        return [
            s
            for s in self.series
            if s.key["source"] == source and s.key["workload"] == workload and s.chosen
        ]


def fits_table(series: list[SeriesModel], confidence: float) -> pd.DataFrame:
    rows = []
    for s in series:
        for f in s.fits:
            rows.append(
                {
                    **s.key,
                    "law": f.law.name,
                    "chosen": f is s.chosen,
                    "measured_cores": ", ".join(f"{c:g}" for c in s.measured_cores),
                    "n_obs": f.n_obs,
                    "aicc": f.aicc,
                    "rss_log": f.rss,
                    **f.parameters(confidence),
                    "note": f.note,
                }
            )
    return pd.DataFrame(rows)


def build(
    hardware: pd.DataFrame,
    runs: pd.DataFrame,
    prices: dict[str, PriceTable],
    settings: Settings | None = None,
) -> ScalingModel:
    """Fit every hardware-effect series; predict and price at the configured core counts."""
    settings = settings or load_settings()
    series = model_series(hardware, runs, settings)
    cores = sorted(set(settings.predict_cores))
    predictions = [
        predict(
            s,
            sorted(set(cores) | set(s.measured_cores)),
            settings.confidence,
            prices.get(s.key["source"]),
        )
        for s in series
    ]
    predictions = [p for p in predictions if not p.empty]
    table = pd.concat(predictions, ignore_index=True) if predictions else pd.DataFrame()
    return ScalingModel(
        settings=settings,
        series=series,
        fits=fits_table(series, settings.confidence),
        predictions=table,
        optimal=optimal_table(table),
    )
