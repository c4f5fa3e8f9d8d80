"""The section on each configuration's achieved GFLOP/s as a fraction of the machine peak."""

from __future__ import annotations

from analysis.compute.pipeline import Analysis
from analysis.load.legacy import SOURCE as LEGACY_SOURCE
from analysis.render import charts
from analysis.render.htmlkit import Col, missing, table_html
from analysis.render.page import Page, Section

ID = "peak"


def write(page: Page, an: Analysis) -> None:
    pk = an.peak[an.peak["source"] != LEGACY_SOURCE]
    if pk.empty or not pk["measured"].any():
        page.not_measured.append(
            ("fraction of peak", "no record carries flops and a matmul peak probe")
        )
        return
    page.add(f'<h2 id="{ID}">Fraction of machine peak</h2>')
    page.add(
        "<p>Achieved GFLOP/s = analytic FLOPs per training step / steady-state step time; "
        "peak = the machine peak: the best library's float32 GEMM on the same cores (see "
        '"Machine peak" below). Rows without <code>flops</code> say "not measured".</p>'
    )
    page.figure(charts.peak(pk), "peak", "fraction of machine peak per configuration")
    shown = pk.assign(
        fraction=pk["fraction_of_peak"].map(lambda v: "not measured" if missing(v) else f"{v:.1%}")
    )
    page.add(
        table_html(
            shown,
            [
                Col("workload", "workload"),
                Col("config_label", "configuration"),
                Col("achieved_gflops", "achieved GFLOP/s", "s"),
                Col("peak_gflops", "peak GFLOP/s", "s"),
                Col("fraction", "fraction of peak"),
            ],
        )
    )
    page.csv(pk, "peak")


SECTION = Section(ID, "peak", write)
