"""The section on start-up, phase by phase, kept apart from the timings."""

from __future__ import annotations

from analysis.compute import rundetail
from analysis.compute.pipeline import Analysis
from analysis.load.legacy import SOURCE as LEGACY_SOURCE
from analysis.render import runcharts
from analysis.render.htmlkit import Col, table_html
from analysis.render.page import Page, Section

ID = "startup"


def write(page: Page, an: Analysis) -> None:
    cols = [c for c in an.configs.columns if c.startswith("median_startup_")]
    ours = an.configs[an.configs["source"] != LEGACY_SOURCE]
    if not cols or ours.empty:
        return
    page.add(f'<h2 id="{ID}">Start-up (kept apart from the timings above)</h2>')
    page.add(
        "<p>Median seconds per configuration: framework import, graph tracing or "
        "compilation in the first step, and the rest of what happens before training runs "
        "at speed.</p>"
    )
    detail = rundetail.first_repeats(rundetail.details(an.runs))
    if not detail.empty:
        page.figure(runcharts.startup_phases(detail), "startup", "start-up phase by phase")
    shown = ours[["workload", "config_label", "n_ok", *cols]]
    page.add(
        table_html(
            shown,
            [
                Col("workload", "workload"),
                Col("config_label", "configuration"),
                Col("n_ok", "ok runs", "g"),
            ]
            + [Col(c, c.removeprefix("median_startup_"), "s") for c in cols],
        )
    )
    page.csv(shown, "startup")


SECTION = Section(ID, "start-up", write)
