"""The section reproducing the 2017 benchmark from its logs, in the 2017 notebook's columns."""

from __future__ import annotations

import pandas as pd

from analysis.compute.pipeline import Analysis
from analysis.load.legacy import SOURCE as LEGACY_SOURCE
from analysis.render.htmlkit import Col, table_html
from analysis.render.page import Page, Section

ID = "legacy"


LEGACY_COLS = [
    Col("workload", "workload"),
    Col("legacy_test", "2017 test"),
    Col("label", "label"),
    Col("total_time", "total_time (s)", "g"),
    Col("total_cost", "total_cost ($)", "g"),
    Col("total_time_norm", "total_time_norm", "g"),
    Col("total_cost_norm", "total_cost_norm", "g"),
]


def legacy_table(an: Analysis) -> pd.DataFrame:
    """The 2017 notebook's result columns, with the same names, at full precision."""
    rel = an.relative[an.relative["source"] == LEGACY_SOURCE]
    if rel.empty:
        return pd.DataFrame()
    return pd.DataFrame(
        {
            "workload": rel["workload"],
            "legacy_test": rel["legacy_test"],
            "label": rel["config_label"],
            "total_time": rel["time"],
            "total_cost": rel["cost"],
            "total_time_norm": rel["time_rel"],
            "total_cost_norm": rel["cost_rel"],
        }
    ).reset_index(drop=True)


def write(page: Page, an: Analysis) -> None:
    table = legacy_table(an)
    if table.empty:
        return
    page.add(f'<h2 id="{ID}">The 2017 benchmark, reproduced from its logs</h2>')
    page.add(
        "<p>The 2017 method: total time = sum of <code>elapsed</code> over the epochs of each "
        "platform; relative time = total / the GPU's total; cost = total time × the per-second "
        "rate (GPU instance $0.745/h; 8 vCPUs $0.060/h × (1 + 0.0607) Skylake premium, linear "
        "in vCPUs); relative cost = cost / the GPU's cost. Shown to 6 digits; the CSV has every "
        "digit.</p>"
    )
    page.add(table_html(table, LEGACY_COLS))
    page.csv(table, "legacy_2017")


SECTION = Section(ID, "2017", write)
