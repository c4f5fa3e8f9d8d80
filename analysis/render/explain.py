"""Report sections that explain the framework effect: the verdict that opens the report and
the time budget per configuration. Each takes the report's page (add / figure / csv) and the
analysis, so report.py calls one function per section."""

from __future__ import annotations

from typing import Any

from analysis.compute import verdict
from analysis.load.legacy import SOURCE as LEGACY_SOURCE
from analysis.render import budget_chart, terminal
from analysis.render.htmlkit import Col, prose, table_html
from twinbench.result import budget


def section_verdict(page: Any, an: Any) -> None:
    """One line per workload and core count; a warning where the two metrics disagree. Where the
    inputs hold a deciding sweep's decisions, they lead, as on the terminal: their intervals hold
    at every look at the pairs, which the runs' own intervals below them do not claim."""
    options = an.options
    found = verdict.verdicts(
        an.runs, options.metric, options.unstable_width, an.reference, an.design
    )
    decided = terminal.decided_lines(an, printed_below=False)
    html = prose("explain")
    page.add(html.verdict_heading())
    if decided:
        lead, *items = decided
        lead = lead.removeprefix("verdict: ").rstrip(":")
        intro = f"{lead[:1].upper()}{lead[1:]}:"
        page.add(html.verdict_decided(intro, [i.strip() for i in items if i.strip()]))
    if not found:
        if not decided:
            page.add(html.verdict_none())
        return
    page.add(html.verdict_list(found, bool(decided)))


def section_budget(page: Any, an: Any) -> None:
    """Stacked bars per workload, and the table of parts and shares."""
    configs = an.configs[an.configs["source"] != LEGACY_SOURCE]
    rows = budget_chart.rows_with_budget(configs)
    if rows.empty:
        return
    html = prose("explain")
    page.add(html.budget_heading())
    page.add(html.budget_intro())
    for workload, group in rows.groupby("workload", sort=False):
        page.figure(
            budget_chart.stacked(group, str(workload)),
            f"budget_{workload}",
            f"{workload}: time budget per configuration",
        )
    cols = budget_chart.budget_columns()
    shown = rows[["workload", "config_label", "n_ok", *cols]].copy()
    total = shown[cols].sum(axis=1)
    shown["total"] = total
    shown["first_share"] = shown["median_budget_first_step_s"] / total
    shown["steady_share"] = shown["median_budget_steady_s"] / total
    page.add(
        table_html(
            shown,
            [
                Col("workload", "workload"),
                Col("config_label", "configuration"),
                Col("n_ok", "ok runs", "g"),
            ]
            + [Col(f"median_budget_{p}_s", budget.LABELS[p], "s") for p in budget.PARTS]
            + [
                Col("total", "total (s)", "s"),
                Col("first_share", "first step share", "pct"),
                Col("steady_share", "steady share", "pct"),
            ],
        )
    )
    page.csv(shown, "budget")
