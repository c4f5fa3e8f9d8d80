"""The sections listing the runs: the failed ones (where any failed), then every run."""

from __future__ import annotations

from analysis.compute.pipeline import Analysis
from analysis.render.htmlkit import Col, table_html
from analysis.render.page import Page, Section

FAILED_ID, RUNS_ID = "failed", "runs"


RUN_COLS = [
    Col("machine", "machine"),
    Col("source", "source"),
    Col("workload", "workload"),
    Col("config_label", "configuration"),
    Col("repeat", "repeat", "g"),
    Col("status", "status"),
    Col("train_time_s", "training time (s)", "s"),
    Col("steady_step_s", "steady step (ms)", "ms"),
    Col("final_val_accuracy", "final val acc", "g"),
    Col("conflict", "conflict"),
    Col("error", "error"),
    Col("path", "file"),
]


def write_failed(page: Page, an: Analysis) -> None:
    if an.failed.empty:
        return
    page.add(f'<h2 id="{FAILED_ID}">Failed runs</h2>')
    page.add(
        f'<p class="warn">{len(an.failed)} of {len(an.runs)} runs failed. They are '
        "kept in every table (as failed) and left out of the timings.</p>"
    )
    page.add(table_html(an.failed, RUN_COLS, lambda r: "failed"))
    page.csv(an.failed, "failed_runs")


def write_runs(page: Page, an: Analysis) -> None:
    page.add(f'<h2 id="{RUNS_ID}">All runs</h2>')
    page.add(table_html(an.runs, RUN_COLS, lambda r: "failed" if r["status"] != "ok" else ""))
    page.csv(an.runs, "runs")
    page.csv(an.configs, "configurations")


FAILED = Section(FAILED_ID, "failures", write_failed)
RUNS = Section(RUNS_ID, "all runs", write_runs)
