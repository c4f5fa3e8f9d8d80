"""The time budget as stacked bars: one bar per configuration, the frameworks side by side at
each core count, each bar split into twinbench.result.budget's parts (medians over the repeats)."""

from __future__ import annotations

import pandas as pd
from matplotlib.figure import Figure

from analysis.compute.relative import bar_order
from analysis.render.charts import _figure
from twinbench.result import budget

PART_COLOURS = {
    "first_step": "#d62728",
    "warmup": "#ff9896",
    "steady": "#1f77b4",
    "steady_spread": "#aec7e8",
    "remainder": "#bcbd22",
    "validation": "#7f7f7f",
}
# Room for the legend's two rows of three parts below the bars.
LEGEND_INCHES = 0.6


def budget_columns() -> list[str]:
    return [f"median_budget_{p}_s" for p in budget.PARTS]


def rows_with_budget(configs: pd.DataFrame) -> pd.DataFrame:
    cols = budget_columns()
    if not set(cols) <= set(configs.columns):
        return configs.iloc[0:0]
    return configs[configs[cols].notna().all(axis=1) & (configs["n_ok"] > 0)]


def stacked(rows: pd.DataFrame, workload: str) -> Figure:
    """Horizontal stacked bars of one workload's configurations, in seconds."""
    rows = bar_order(rows)
    # The legend sits below the bars, outside them: inside, it covered the bars and the title of a
    # workload with one or two configurations, and constrained layout gave up on the axes.
    fig, (ax,) = _figure(8.0, LEGEND_INCHES + 0.5 + 0.42 * len(rows))
    labels = [str(label) for label in rows["config_label"]]
    left = [0.0] * len(rows)
    for part in budget.PARTS:
        values = [max(float(v), 0.0) for v in rows[f"median_budget_{part}_s"]]
        ax.barh(labels, values, left=left, color=PART_COLOURS[part], label=budget.LABELS[part])
        left = [a + b for a, b in zip(left, values, strict=True)]
    ax.invert_yaxis()
    ax.set_xlabel("seconds (median of each part over the repeats)")
    ax.set_title(f"{workload}: where the training time went")
    fig.legend(loc="outside lower center", ncol=3, fontsize=7, frameon=False)
    ax.grid(axis="x", color="#e5e5e5")
    return fig
