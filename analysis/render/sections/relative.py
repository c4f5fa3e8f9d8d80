"""The section on each configuration's time and cost relative to its baseline."""

from __future__ import annotations

from analysis.compute.pipeline import Analysis
from analysis.render import charts
from analysis.render.htmlkit import Col, esc, stability_class, table_html
from analysis.render.page import Page, Section
from analysis.render.sections.common import unit

ID = "relative"


REL_COLS = [
    Col("config_label", "configuration"),
    Col("n_ok", "ok runs", "g"),
    Col("n_failed", "failed", "g"),
    Col("time", "time (s)", "s"),
    Col("time_ci_low", "interval low", "s"),
    Col("time_ci_high", "interval high", "s"),
    Col("time_ci_confidence", "coverage", "pct"),
    Col("time_rel", "time vs baseline", "x"),
    Col("time_rel_ci_low", "CI low", "x"),
    Col("time_rel_ci_high", "CI high", "x"),
    Col("time_rel_sweeps", "sweeps (above 1: one value each)", "g"),
    Col("price_per_hour", "price /h", "money"),
    Col("cost", "cost", "money"),
    Col("cost_rel", "cost vs baseline", "x"),
    Col("flags", "flags"),
]


def _priced(cols: list[Col], currency: str) -> list[Col]:
    """Money columns name their currency in the header."""
    names = {"price_per_hour": f"price ({currency}/h)", "cost": f"cost ({currency})"}
    return [Col(c.name, names.get(c.name, c.header), c.kind) for c in cols]


def write(page: Page, an: Analysis) -> None:
    page.add(f'<h2 id="{ID}">Training time and cost relative to a baseline</h2>')
    why = f"; compared since {esc(an.metric_note)}" if an.metric_note else ""
    page.add(
        f"<p>Each configuration's {esc(an.metric_name)} ({esc(an.metric_definition)}; the "
        f"median over its repeats{why}) divided by the "
        "baseline's on the same workload; cost = time × the price of the configuration (vCPUs = "
        "cores; the GPU instance for a GPU run). Bars below the dashed line are faster or "
        "cheaper than the baseline; a bold outline marks the baseline, and a ! after a value "
        "an unstable result (see its flags). Intervals need two "
        "repeats or more: for a time, the order-statistics interval of the median with the "
        "coverage it reaches (95% from six repeats on; [min, max] below that); for a ratio, "
        "a 95% Welch t-interval on the logs of the repeats (error bars; wide with two or three "
        "repeats a side, which is what so few runs know), or, where both configurations were "
        "measured in two sweeps or more, a t-interval over those sweeps, each sweep one value "
        "(the ratio of its medians): a host's phase moves a whole sweep, so runs of several "
        "sweeps are not one sample.</p>"
    )
    if an.baseline_error:
        page.add(f'<p class="warn">{esc(an.baseline_error)}</p>')
    for source, base in an.baselines.items():
        price = an.prices[source]
        page.add(f"<h3>{esc(source)}: baseline <code>{esc(base.label)}</code></h3>")
        page.add(
            f'<p class="note">Baseline: {esc(base.label)} ({esc(base.reason)}). '
            f"Prices: {esc(price.describe())}</p>"
        )
        if not price.verified:
            page.add(
                '<p class="warn">The prices of this table are not verified; costs are '
                "indicative until a person checks them against the stated source.</p>"
            )
        rel = an.relative[an.relative["source"] == source]
        for workload, rows in rel.groupby("workload", sort=False):
            page.add(f"<h4>{esc(workload)}</h4>")
            page.figure(
                charts.relative_bars(rows, str(workload), base.label, an.metric_name),
                f"relative_{source}_{workload}",
                f"{workload}: time and cost relative to {base.label}",
            )
            page.add(table_html(rows, unit(_priced(REL_COLS, price.currency), an), stability_class))
        page.csv(rel, f"relative_{source}")


SECTION = Section(ID, "time & cost", write)
