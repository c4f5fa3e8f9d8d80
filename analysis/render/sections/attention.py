"""The section on attention: fused against explicit per transformer workload, backend and core
count (analysis/compute/attention_split.py), with the path and kernel that ran on each side, or
the one command that adds the missing setting where the inputs hold only one."""

from __future__ import annotations

from analysis.compute import attention_split
from analysis.compute.pipeline import Analysis
from analysis.render.htmlkit import Col, esc, table_html
from analysis.render.page import Page, Section

ID = "attention"


def write(page: Page, an: Analysis) -> None:
    table, hints = attention_split.split(an.runs), attention_split.missing(an.runs)
    if table.empty and not hints:
        return
    page.add(f'<h2 id="{ID}">Attention: fused vs explicit</h2>')
    page.add(
        "<p>Per transformer workload, backend and core count: the median steady step with "
        "<code>model.arch.attention=fused</code> and with <code>explicit</code>, and their "
        "ratio explicit / fused (above 1: the fused kernel is faster; paired where the runs "
        "were interleaved, else a Welch t-interval on the logs of the repeats). <i>ran</i> is "
        "the path and kernel the runs report, not the setting asked for: Keras leaves its "
        "fused route when the attention has dropout (gpt), so both of its sides may have run "
        "the explicit path; where one path and kernel ran on both sides the ratio is the runs' "
        "spread, not a kernel effect (<i>same path both sides</i>).</p>"
    )
    for hint in hints:
        page.add(f"<p>{esc(hint)}</p>")
    if table.empty:
        return
    cols = [Col("workload", "workload"), Col("backend", "backend"), Col("cpus", "cores", "g")]
    for side in attention_split.SETTINGS:
        cols += [
            Col(f"{side}_n", f"{side} runs", "g"),
            Col(f"{side}_step_s", f"{side} step", "ms"),
            Col(f"{side}_low_s", "low", "ms"),
            Col(f"{side}_high_s", "high", "ms"),
            Col(f"{side}_ran", f"{side}: ran"),
        ]
    cols += [
        Col("ratio", "explicit / fused", "x"),
        Col("ratio_low", "low", "x"),
        Col("ratio_high", "high", "x"),
        Col("ratio_pairs", "pairs", "g"),
        Col("same_ran", "same path both sides", "bool"),
    ]
    page.add(table_html(table, cols))
    page.csv(table, "attention_split")


SECTION = Section(ID, "attention", write)
