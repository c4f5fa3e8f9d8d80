"""The release-history section: each workload and backend's steady step across stacks
(framework releases, conf/stack/), a verdict between neighbouring releases and the kernels each
ran (analysis/compute/release_history.py). Absent unless some series ran on two stacks."""

from __future__ import annotations

from analysis.compute import release_history
from analysis.compute.pipeline import Analysis
from analysis.render.htmlkit import Col, table_html
from analysis.render.page import Page, Section

ID = "release-history"


def write(page: Page, an: Analysis) -> None:
    table = release_history.history(an.runs)
    if table.empty:
        return
    page.add(f'<h2 id="{ID}">Release history</h2>')
    page.add(
        "<p>Per workload, backend, core count and precision: the median steady step on each "
        "stack (a set of framework releases, conf/stack/), releases in order of the backend's "
        "framework version. <i>vs previous</i> is this release's steady step over the one "
        "before it, with its 95% interval (Welch, on the runs' logs); the verdict is the "
        "decision engine's at its margin (conf/decision/default.yaml): <i>faster</i> or "
        "<i>slower</i> where the whole interval lies beyond the margin, <i>equivalent</i> "
        "where it lies within, <i>undecided</i> else (one run a side decides nothing). "
        "<i>kernels</i> is what the run's kernel probe saw (measure.kernel_probe=true); "
        "<i>kernels changed</i> says where it differs from the release before.</p>"
    )
    page.add(
        table_html(
            table,
            [
                Col("workload", "workload"),
                Col("backend", "backend"),
                Col("cpus", "cores", "g"),
                Col("stack", "stack"),
                Col("release", "release"),
                Col("n", "runs", "g"),
                Col("steady_step_s", "steady step", "ms"),
                Col("steady_ci_low_s", "low", "ms"),
                Col("steady_ci_high_s", "high", "ms"),
                Col("versus", "vs previous"),
                Col("ratio", "ratio", "x"),
                Col("ratio_low", "low", "x"),
                Col("ratio_high", "high", "x"),
                Col("verdict", "verdict"),
                Col("kernels", "kernels"),
                Col("kernels_changed", "kernels changed", "bool"),
                Col("pins", "pins read back"),
            ],
        )
    )
    page.csv(table, "release_history")


SECTION = Section(ID, "releases", write)
