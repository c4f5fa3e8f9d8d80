"""Report sections that explain the framework effect: the verdict that opens the report and
the time budget per configuration. Each takes the report's page (add / figure / csv) and the
analysis, so report.py calls one function per section."""

from __future__ import annotations

from typing import Any

from analysis import budget_chart, verdict
from analysis.htmlkit import Col, esc, table_html
from analysis.legacy import SOURCE as LEGACY_SOURCE
from twinbench import budget


def section_verdict(page: Any, an: Any) -> None:
    """One line per workload and core count; a warning where the two metrics disagree."""
    found = verdict.verdicts(an.runs, an.options.metric, an.options.unstable_width, an.reference)
    page.add('<h2 id="verdict">Verdict</h2>')
    if not found:
        page.add("<p>No workload has two backends measured on the same machine and cores.</p>")
        return
    items = []
    for v in found:
        items.append(f"<li>{esc(v.line)}</li>")
        if v.disagreement:
            items.append(f'<li class="warn">{esc(v.disagreement)}</li>')
    page.add(
        "<p>Each framework's default settings. A capped run (<code>max_steps</code>) is "
        "judged on its steady-state step time, since its training time is mostly start-up; "
        "otherwise on training time. Where the two disagree, the budget part that makes "
        'them disagree is named (see "Time budget").</p>'
        f"<ul>{''.join(items)}</ul>"
    )


def section_budget(page: Any, an: Any) -> None:
    """Stacked bars per workload, and the table of parts and shares."""
    configs = an.configs[an.configs["source"] != LEGACY_SOURCE]
    rows = budget_chart.rows_with_budget(configs)
    if rows.empty:
        return
    page.add('<h2 id="budget">Time budget: where the training time went</h2>')
    page.add(
        "<p>Each run's training time (the sum of its epochs, validation included) split into "
        "parts measured from the same timestamps: the first step (start-up: tracing, "
        "compilation), the other warm-up and epoch-first steps, the steady steps x their "
        "median, what the steady steps took beyond that median, the gap between an epoch's "
        "last step and its validation, and validation. The parts add up to the training time "
        "(checked per run within 2%). Bars show medians over the repeats.</p>"
    )
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
