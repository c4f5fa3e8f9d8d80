"""The scaling model in the report: fitted curves drawn over the hardware-effect chart (the part
past the measured cores shaded and labelled extrapolated), and a section with the fits, the
predicted times and costs, and the cheapest and fastest core counts.

report.py calls `chart` in place of charts.scaling and `section` after the hardware section.
"""

from __future__ import annotations

from typing import Any

import matplotlib as mpl
import numpy as np
import pandas as pd
from matplotlib.figure import Figure

from analysis.compute.scaling.laws import AICC_MARGIN
from analysis.compute.scaling.model import ScalingModel
from analysis.compute.scaling.series import EXTRAPOLATED, SeriesModel
from analysis.compute.scaling.settings import Settings
from analysis.render import charts
from analysis.render.htmlkit import Col, prose, table_html

FIT_COLS = [
    Col("workload", "workload"),
    Col("machine", "machine"),
    Col("backend", "framework"),
    Col("settings_label", "settings"),
    Col("measured_cores", "fitted on cores"),
    Col("law", "law"),
    Col("chosen", "chosen", "bool"),
    Col("aicc", "AICc", "g"),
    Col("n_obs", "observations", "g"),
    Col("t1_s", "T1 (s)", "s"),
    Col("t1_s_low", "low", "s"),
    Col("t1_s_high", "high", "s"),
    Col("parallel_fraction", "parallel fraction", "g"),
    Col("parallel_fraction_low", "low", "g"),
    Col("parallel_fraction_high", "high", "g"),
    Col("sigma", "sigma", "g"),
    Col("sigma_low", "low", "g"),
    Col("sigma_high", "high", "g"),
    Col("kappa", "kappa", "g"),
    Col("kappa_low", "low", "g"),
    Col("kappa_high", "high", "g"),
    Col("note", "note"),
]
PREDICTION_COLS = [
    Col("workload", "workload"),
    Col("machine", "machine"),
    Col("backend", "framework"),
    Col("settings_label", "settings"),
    Col("law", "law"),
    Col("cpus", "cores", "g"),
    Col("range", "range"),
    Col("predicted_time", "time (s)", "s"),
    Col("predicted_time_low", "low", "s"),
    Col("predicted_time_high", "high", "s"),
    Col("predicted_speedup", "speed-up", "x"),
    Col("predicted_cost", "cost", "money"),
    Col("predicted_cost_low", "low", "money"),
    Col("predicted_cost_high", "high", "money"),
]
OPTIMAL_COLS = [
    Col("workload", "workload"),
    Col("machine", "machine"),
    Col("backend", "framework"),
    Col("settings_label", "settings"),
    Col("cheapest_cpus", "cheapest at cores", "g"),
    Col("cheapest_cost", "cost", "money"),
    Col("cheapest_cost_low", "low", "money"),
    Col("cheapest_cost_high", "high", "money"),
    Col("cheapest_time", "time (s)", "s"),
    Col("cheapest_range", "range"),
    Col("fastest_cpus", "fastest at cores", "g"),
    Col("fastest_time", "time (s)", "s"),
    Col("fastest_range", "range"),
]


def _row_class(row: pd.Series) -> str:
    return "unstable" if EXTRAPOLATED in (row.get("range"), row.get("cheapest_range")) else ""


def chart(hw: pd.DataFrame, workload: str, an: Any) -> Figure:
    """The hardware-effect chart with each series' chosen law drawn over its measured points."""
    fig = charts.scaling(hw, workload)
    model = getattr(an, "scaling", None)
    if model is None or hw.empty:
        return fig
    fitted = model.for_workload(str(hw["source"].iloc[0]), workload)
    if fitted:
        overlay(fig, fitted, model.settings)
    return fig


def overlay(fig: Figure, fitted: list[SeriesModel], settings: Settings) -> None:
    ax_s, ax_e = fig.axes[0], fig.axes[1]
    low = min(min(s.measured_cores) for s in fitted)
    high = max(max(s.measured_cores) for s in fitted)
    top = high * settings.chart_extrapolation_factor
    grid = np.geomspace(low, top, 80)
    with mpl.rc_context(charts.BASE_STYLE):
        for ax in (ax_s, ax_e):
            ax.axvspan(high, top, color="#f0f0f0", zorder=0)
        ax_s.text(
            high * 1.05, 0.97, EXTRAPOLATED, transform=ax_s.get_xaxis_transform(),
            va="top", fontsize=8, color="#555555",
        )  # fmt: skip
        for s in fitted:
            f = s.chosen
            assert f is not None
            log_t, se = f.log_time(grid), f.log_time_se(grid)
            q = f.t_quantile(settings.confidence)
            speedup = s.reference_time / np.exp(log_t)
            band_low = s.reference_time / np.exp(log_t + q * se)
            band_high = s.reference_time / np.exp(log_t - q * se)
            scale = grid / s.reference_cpus
            colour = _measured_colour(ax_s, s.label)
            inside = grid <= max(s.measured_cores)
            name = f"{f.law.name} fit: {s.label}"
            for ax, values, lo, hi in (
                (ax_s, speedup, band_low, band_high),
                (ax_e, speedup / scale, band_low / scale, band_high / scale),
            ):
                ax.plot(grid[inside], values[inside], color=colour, lw=1, alpha=0.8)
                ax.plot(grid[~inside], values[~inside], color=colour, lw=1, ls="--", label=name)
                ax.fill_between(grid, lo, hi, color=colour, alpha=0.12, lw=0)
        ticks = sorted(
            {float(c) for s in fitted for c in s.measured_cores}
            | {float(2**k) for k in range(int(np.log2(low)), int(np.log2(top)) + 1)}
        )
        for ax in (ax_s, ax_e):
            ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
            ax.minorticks_off()
        ax_s.legend(fontsize=7)


def _measured_colour(ax: Any, label: str) -> str:
    """The colour charts.scaling gave the series' measured line, so fit and points pair up."""
    for line in ax.get_lines():
        if str(line.get_label()).startswith(label):
            return line.get_color()
    return "#555555"


def section(page: Any, an: Any) -> None:
    model: ScalingModel | None = getattr(an, "scaling", None)
    html = prose("scaling_report")
    page.add(html.heading())
    if model is None or model.fits.empty:
        page.add(html.not_fitted())
        return
    page.add(html.intro(AICC_MARGIN, model.settings.confidence))
    page.add(table_html(model.fits, FIT_COLS))
    page.csv(model.fits, "scaling_fits")
    page.add(html.extrapolated())
    page.add(html.predictions_heading())
    page.add(table_html(model.predictions, PREDICTION_COLS, _row_class))
    page.csv(model.predictions, "scaling_predictions")
    page.add(html.optimal_heading())
    page.add(html.optimal_intro())
    page.add(table_html(model.optimal, OPTIMAL_COLS, _row_class))
    page.csv(model.optimal, "scaling_optimal")
    page.add(html.series_count(len(model.series)))
