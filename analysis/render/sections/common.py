"""Column helpers the effect sections share: the metric's unit, and the verdict's shading."""

from __future__ import annotations

import pandas as pd

from analysis.compute.pipeline import Analysis
from analysis.render.htmlkit import Col

METRIC_TIME_COLUMNS = {"time", "time_ci_low", "time_ci_high", "other_time",
                       "reference_time", "variant_time"}  # fmt: skip


def unit(cols: list[Col], an: Analysis) -> list[Col]:
    """Columns holding the compared metric: step times in ms (as everywhere else), training
    times in s."""
    if an.options.metric != "steady_step":
        return cols
    return [
        Col(c.name, c.header.replace("(s)", "(ms)"), "ms") if c.name in METRIC_TIME_COLUMNS else c
        for c in cols
    ]


def verdict_class(row: pd.Series) -> str:
    verdict = str(row.get("verdict", ""))
    if "unstable" in verdict:
        return "unstable"
    return "single" if "single" in verdict or "indicative" in verdict else ""
