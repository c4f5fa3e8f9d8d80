"""Validation on held-out cores: each law fitted on the validation cores alone predicts the
held-out core count, against what was measured there (the README's table)."""

from __future__ import annotations

import json
import math

import pandas as pd

from analysis.compute.scaling.series import SERIES, model_series
from analysis.compute.scaling.settings import Settings, load_settings


def validate(
    hardware: pd.DataFrame, runs: pd.DataFrame, settings: Settings | None = None
) -> pd.DataFrame:
    """Fit each law on the validation cores only and predict the held-out core count.

    One row per series and law (plus the chosen law) where every one of those core counts was
    measured: the prediction, its interval, the measured time and the relative error.
    """
    settings = settings or load_settings()
    fit_cores = set(settings.validation_fit_cores)
    holdout = settings.validation_holdout_cores
    rows = []
    for key, series in hardware.groupby(SERIES, dropna=False, sort=False):
        if not fit_cores | {holdout} <= set(series["cpus"]):
            continue
        measured = float(series.loc[series["cpus"] == holdout, "time"].iloc[0])
        train = series[series["cpus"].isin(fit_cores)]
        model = model_series(train, runs, settings)[0]
        for f in model.fits:
            row = {
                **dict(zip(SERIES, key, strict=True)),
                "law": f.law.name,
                "chosen": f is model.chosen,
                "fit_cores": ", ".join(str(c) for c in sorted(fit_cores)),
                "holdout_cpus": holdout,
                "measured_time": measured,
                "aicc": f.aicc,
                "note": f.note,
            }
            if f.ok:
                lt, se = float(f.log_time(holdout)), float(f.log_time_se(holdout)[0])
                q = f.t_quantile(settings.confidence)
                time, low, high = math.exp(lt), math.exp(lt - q * se), math.exp(lt + q * se)
                row.update(
                    predicted_time=time,
                    predicted_time_low=low,
                    predicted_time_high=high,
                    error=(time - measured) / measured,
                    covered=bool(low <= measured <= high),
                )
            rows.append(row)
    return pd.DataFrame(rows)


def validation_markdown(table: pd.DataFrame) -> str:
    """The validation as a Markdown table (the README's), chosen law first per series."""
    lines = [
        "| workload | build | law | predicted 64 vCPUs (s) | 95% interval (s) | measured (s) "
        "| error | in interval |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for _, r in table.iterrows():
        if pd.isna(r.get("predicted_time")):
            continue
        law = r["law"] + (" (chosen)" if r["chosen"] else "")
        build = json.loads(r["settings"]).get("build", r["settings_label"])
        lines.append(
            f"| {r['workload']} | {build} | {law} | {r['predicted_time']:.0f} | "
            f"{r['predicted_time_low']:.0f} to {r['predicted_time_high']:.0f} | "
            f"{r['measured_time']:.0f} | {r['error']:+.1%} | {'yes' if r['covered'] else 'no'} |"
        )
    return "\n".join(lines)
