"""The section on the framework effect: the reference backend's time / each other backend's."""

from __future__ import annotations

from analysis.compute import outcome, verdict
from analysis.compute.pipeline import Analysis
from analysis.render import charts
from analysis.render.htmlkit import Col, esc, table_html
from analysis.render.page import Page, Section
from analysis.render.sections.common import unit, verdict_class

ID = "framework"


FW_COLS = [
    Col("workload", "workload"),
    Col("machine", "machine"),
    Col("device", "device"),
    Col("cpus", "cores", "g"),
    Col("reference", "reference"),
    Col("other", "other"),
    Col("reference_settings", "reference settings"),
    Col("other_settings", "other settings"),
    Col("n_reference", "reference runs", "g"),
    Col("n_other", "other runs", "g"),
    Col("reference_time", "reference time (s)", "s"),
    Col("other_time", "other time (s)", "s"),
    Col("ratio", "reference / other", "x"),
    Col("ratio_ci_low", "95% CI low", "x"),
    Col("ratio_ci_high", "95% CI high", "x"),
    Col("ratio_pairs", "interleaved pairs (0: ratio of medians)", "g"),
    Col("ratio_sweeps", "sweeps (above 1: one value each)", "g"),
    Col("steady_step_ratio", "steady step reference / other", "x"),
    Col("verdict", "verdict"),
]


def write(page: Page, an: Analysis) -> None:
    fe = an.framework
    if fe.empty:
        page.not_measured.append(
            ("framework effect", "no workload has the reference backend and another one on "
             "the same machine, device and core count")
        )  # fmt: skip
        return
    ref = esc(fe["reference_label"].iloc[0])
    others = esc(", ".join(dict.fromkeys(fe["other_label"])))
    page.add(f'<h2 id="{ID}">Framework effect: {ref} vs {others}</h2>')
    page.add(
        f"<p>The reference backend's ({ref}) {esc(an.metric_name)} / each other backend's, on "
        "the same machine, workload, device, cores and threads (below 1: the reference is "
        "faster; <code>--reference</code> chooses another). Intervals: where the runs were "
        "interleaved, the exact interval of the pairs' ratios (from six pairs, the fewest "
        "that reach 95%), or, where the pairs come from "
        "several sweeps, a t-interval over the sweeps with each sweep's median one value (a "
        "session's phase moves all its pairs); else a 95% Welch t-interval on "
        "the logs of the repeats, around the ratio of medians (twinbench.stats.ratio_ci; wide "
        "with two or three runs a side); none with a single run per side. The verdict reads "
        "the interval at the decision engine's margin (conf/decision/default.yaml, "
        f"{esc(outcome.margin_words(an.design))}; a deciding sweep's own where the inputs hold "
        "one): a side is faster where the whole interval lies beyond "
        "it, the two are equivalent where it lies within, and anything else is undecided, with "
        "the side the interval puts ahead where it excludes 1. The chart shows "
        "each backend's default settings; the table lists every pair of settings variants.</p>"
    )
    caps = verdict.capped_steps(an.runs)
    if caps and an.options.metric != "steady_step":  # as the terminal's tables say it
        page.add(
            f"<p><b>Capped runs</b> (max_steps={esc(','.join(map(str, caps)))}; a resident "
            "worker's life is one): their training time is mostly start-up and warm-up, so the "
            "steady-step column leads, as in the verdict; the verdict column here reads the "
            "training time.</p>"
        )
    page.figure(
        charts.framework_ratios(fe[fe["headline"]]),
        "framework_effect",
        f"{ref} time / each other backend's time per workload and core count",
    )
    page.add(table_html(fe, unit(FW_COLS, an), verdict_class))
    page.csv(fe, "framework_effect")


SECTION = Section(ID, "framework", write)
