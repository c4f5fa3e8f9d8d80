"""The section on the software effect: each settings variant's time / the default variant's."""

from __future__ import annotations

from analysis.compute.pipeline import Analysis
from analysis.render import charts
from analysis.render.htmlkit import Col, esc, table_html
from analysis.render.page import Page, Section
from analysis.render.sections.common import unit, verdict_class

ID = "software"


SW_COLS = [
    Col("workload", "workload"),
    Col("machine", "machine"),
    Col("backend", "framework"),
    Col("cpus", "cores", "g"),
    Col("reference_settings", "default settings"),
    Col("variant_settings", "variant settings"),
    Col("reference_time", "default time (s)", "s"),
    Col("variant_time", "variant time (s)", "s"),
    Col("time_ratio", "variant / default", "x"),
    Col("time_ratio_ci_low", "CI low", "x"),
    Col("time_ratio_ci_high", "CI high", "x"),
    Col("verdict", "verdict"),
]


def write(page: Page, an: Analysis) -> None:
    se = an.software
    if se.empty:
        page.not_measured.append(("software effect", "no settings were swept"))
        return
    page.add(f'<h2 id="{ID}">Software effect: settings (oneDNN, XLA, compile, ...)</h2>')
    page.add(
        "<p>A settings variant's time / the default variant's (each framework's "
        "out-of-the-box settings; in the 2017 logs, TensorFlow from pip), all else equal. "
        "Below 1 the setting helps. Settings are those each run verified in effect "
        "(<code>settings</code> in result.json), else those its config asked for.</p>"
    )
    for (source, workload), _ in se.groupby(["source", "workload"], sort=False):
        page.add(f"<h3>{esc(workload)} ({esc(source)})</h3>")
        page.figure(
            charts.software(se[se["source"] == source], str(workload)),
            f"software_{source}_{workload}",
            f"{workload}: settings variants",
        )
    page.add(table_html(se, unit(SW_COLS, an), verdict_class))
    page.csv(se, "software_effect")


SECTION = Section(ID, "software", write)
