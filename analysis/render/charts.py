"""Figures for the report: matplotlib Figures without pyplot (no global state, no display;
saved as PNG by matplotlib's Agg canvas).

Relative-time and -cost bars follow the 2017 charts: one bar per configuration, a dashed line
at 1.0x (the baseline), labels such as 2.13x; GPU in red, then one colour family per
framework (2017: pip blue, compiled green), darker for more cores.
"""

from __future__ import annotations

import io
import json
import math

import matplotlib as mpl
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter, MaxNLocator

from analysis.compute.relative import bar_order
from analysis.load import backends

BASE_STYLE = {
    "font.size": 9,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "axes.grid.axis": "y",
    "grid.color": "#e5e5e5",
    "axes.axisbelow": True,
}
GPU_RED = "#a50f15"
# The 2017 builds' colour families; a backend's comes from analysis/load/backends.py by its order.
BUILD_FAMILIES = {"pip": "Blues", "compiled": "Greens"}
TIMES = FuncFormatter(lambda v, _pos: f"{v:.2f}x")


def png(fig: Figure) -> bytes:
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=100, bbox_inches="tight")
    return buf.getvalue()


def _figure(width: float, height: float, cols: int = 1) -> tuple[Figure, list]:
    with mpl.rc_context(BASE_STYLE):
        fig = Figure(figsize=(width, height), layout="constrained")
        axes = fig.subplots(1, cols, squeeze=False)[0]
    return fig, list(axes)


def _family(row: pd.Series) -> str:
    settings = json.loads(row["settings"]) if isinstance(row.get("settings"), str) else {}
    build = settings.get("build") if isinstance(settings, dict) else None
    return build if build in BUILD_FAMILIES else str(row["backend"])


def colours(rows: pd.DataFrame) -> list[str]:
    """Red for GPUs; per family a sequential palette, darker with more cores."""
    out = []
    for _, row in rows.iterrows():
        if row["device"] == "cuda":
            out.append(GPU_RED)
            continue
        family = _family(row)
        same = rows[[(_family(r) == family and r["device"] != "cuda") for _, r in rows.iterrows()]]
        cores = sorted(same["cpus"].dropna().unique())
        rank = cores.index(row["cpus"]) if row["cpus"] in cores else 0
        shade = 0.35 + 0.55 * (rank + 1) / max(len(cores), 1)
        cmap = BUILD_FAMILIES.get(family) or backends.family_map(family, rows["backend"])
        out.append(mpl.colors.to_hex(mpl.colormaps[cmap](shade)))
    return out


def _interval_bars(
    ax, pos: list, mid: pd.Series, lo: pd.Series, hi: pd.Series, horizontal: bool = False
) -> None:
    """95% interval whiskers, only where the repeats gave one (none for single runs)."""
    keep = [i for i in range(len(pos)) if pd.notna(lo.iloc[i]) and pd.notna(hi.iloc[i])]
    if not keep:
        return
    m, low, high = mid.iloc[keep], lo.iloc[keep], hi.iloc[keep]
    err = [m.to_numpy() - low.to_numpy(), high.to_numpy() - m.to_numpy()]
    at = [pos[i] for i in keep]
    if horizontal:
        ax.errorbar(m, at, xerr=err, fmt="none", ecolor="#333333", capsize=3, lw=1)
    else:
        ax.errorbar(at, m, yerr=err, fmt="none", ecolor="#333333", capsize=3, lw=1)


def ratio_bars(ax, ratios, lows, highs, labels: list[str], colours) -> None:
    """Horizontal bars of time ratios with their intervals, each labelled past its interval's
    upper end, a dashed line at 1 and the rows top to bottom (the software-settings and
    API/runtime charts)."""
    at = list(range(len(labels)))
    ax.barh(at, ratios, color=colours)
    _interval_bars(ax, at, ratios, lows, highs, horizontal=True)
    for i, (v, hi) in enumerate(zip(ratios, highs, strict=True)):
        if not math.isnan(v):
            ax.annotate(
                f"{v:.2f}x",
                (v if math.isnan(hi) else hi, i),
                xytext=(4, 0),
                textcoords="offset points",
                va="center",
                fontsize=7,
            )
    ax.axvline(1.0, ls="--", color="#1a1a1a", lw=1)
    ax.set_yticks(at, labels)
    ax.invert_yaxis()
    ax.xaxis.set_major_formatter(TIMES)


def _bars(ax, rows: pd.DataFrame, value: str, title: str, ylabel: str) -> None:
    x = range(len(rows))
    heights = rows[value].fillna(0.0)
    bars = ax.bar(x, heights, color=colours(rows), width=0.75)
    _interval_bars(ax, list(x), heights, rows[f"{value}_ci_low"], rows[f"{value}_ci_high"])
    for bar, (_, row) in zip(bars, rows.iterrows(), strict=True):
        if row["config_label"] == row["baseline"]:
            bar.set_edgecolor("#1a1a1a")
            bar.set_linewidth(1.5)
        if row["n_ok"] == 0:
            ax.annotate(
                "failed",
                (bar.get_x() + bar.get_width() / 2, 0),
                ha="center",
                va="bottom",
                color=GPU_RED,
                rotation=90,
                fontsize=8,
            )
        elif pd.notna(row[value]):
            mark = " !" if row["unstable"] and row["n_ok"] > 1 else ""
            ax.annotate(
                f"{row[value]:.2f}x{mark}",
                (bar.get_x() + bar.get_width() / 2, bar.get_height()),
                ha="center",
                va="bottom",
                fontsize=7,
            )
    ax.axhline(1.0, ls="--", color="#1a1a1a", lw=1)
    ax.yaxis.set_major_formatter(TIMES)
    ax.set_xticks(list(x), rows["config_label"], rotation=45, ha="right")
    ax.set_title(title)
    ax.set_ylabel(ylabel)


def relative_bars(rows: pd.DataFrame, workload: str, baseline: str, metric_name: str) -> Figure:
    """Time and cost of each configuration relative to the baseline, side by side."""
    rows = bar_order(rows)
    has_cost = rows["cost_rel"].notna().any()
    width = max(6.0, 0.5 * len(rows) + 2.5)
    fig, axes = _figure(width * (2 if has_cost else 1), 4.2, 2 if has_cost else 1)
    with mpl.rc_context(BASE_STYLE):
        _bars(
            axes[0],
            rows,
            "time_rel",
            f"Training time: {workload}",
            f"{metric_name.capitalize()} relative to {baseline}",
        )
        if has_cost:
            _bars(
                axes[1],
                rows,
                "cost_rel",
                f"Training cost: {workload}",
                f"Cost relative to {baseline}",
            )
    return fig


def framework_ratios(fe: pd.DataFrame) -> Figure:
    """The reference backend's time / each other backend's per workload against cores, one
    line per other backend (and machine), with the repeats' intervals."""
    workloads = list(dict.fromkeys(fe["workload"]))
    cols = min(len(workloads), 4)  # small multiples, four to a row, stay readable
    rows_n = -(-len(workloads) // cols)
    with mpl.rc_context(BASE_STYLE):
        fig = Figure(figsize=(4.0 * cols, 3.6 * rows_n), layout="constrained")
        grid = fig.subplots(rows_n, cols, squeeze=False)
    for ax in grid.flat[len(workloads) :]:
        ax.set_visible(False)
    with mpl.rc_context(BASE_STYLE):
        for ax, workload in zip(grid.flat, workloads, strict=False):
            rows = fe[fe["workload"] == workload]
            where = [
                "gpu" if d == "cuda" else str(c)
                for d, c in zip(rows["device"], rows["cpus"], strict=True)
            ]
            ticks = sorted(set(where), key=lambda w: (w != "gpu", int(w) if w.isdigit() else 0))
            ax.set_xticks(range(len(ticks)), ticks)
            many_machines = rows["machine"].nunique() > 1
            for (machine, other), m in rows.groupby(["machine", "other"], sort=False):
                m = m.sort_values("cpus")
                xs = [
                    ticks.index("gpu" if d == "cuda" else str(c))
                    for d, c in zip(m["device"], m["cpus"], strict=True)
                ]
                label = str(m["other_label"].iloc[0]) + (f" @ {machine}" if many_machines else "")
                colour = None if many_machines else backends.colour(str(other), fe["other"])
                ax.plot(xs, m["ratio"], marker="o", label=label, color=colour)
                _interval_bars(ax, xs, m["ratio"], m["ratio_ci_low"], m["ratio_ci_high"])
                for x, y in zip(xs, m["ratio"], strict=True):
                    ax.annotate(
                        f"{y:.2f}x", (x, y), textcoords="offset points", xytext=(6, 4), fontsize=7
                    )
            ax.axhline(1.0, ls="--", color="#1a1a1a", lw=1)
            ax.set_ylim(
                bottom=0,
                top=max(1.2, float(rows["ratio_ci_high"].fillna(rows["ratio"]).max()) * 1.25),
            )
            ax.yaxis.set_major_formatter(TIMES)
            ax.set_title(workload)
            ax.set_xlim(-0.5, len(ticks) - 0.5)
            ax.set_xlabel("cores")
            reference = str(rows["reference_label"].iloc[0])
            ax.set_ylabel(f"{reference} time / other's time\n(below 1: {reference} faster)")
            ax.legend(fontsize=7)
    return fig


def scaling(hw: pd.DataFrame, workload: str) -> Figure:
    """Speed-up and parallel efficiency against cores, one line per framework and settings."""
    rows = hw[hw["workload"] == workload]
    fig, (ax_s, ax_e) = _figure(10, 3.8, 2)
    with mpl.rc_context(BASE_STYLE):
        many = rows["machine"].nunique() > 1
        for (machine, backend, label), s in rows.groupby(
            ["machine", "backend", "settings_label"], sort=False
        ):
            s = s.sort_values("cpus")
            name = f"{backend}" + ("" if label == "default" else f" [{label}]")
            name += f" @ {machine}" if many else ""
            colour = backends.colour(backend, rows["backend"]) if label == "default" else None
            style = "-" if label in ("default", "build=pip") else "--"
            ax_s.plot(s["cpus"], s["speedup"], marker="o", ls=style, color=colour, label=name)
            _interval_bars(
                ax_s, list(s["cpus"]), s["speedup"], s["speedup_ci_low"], s["speedup_ci_high"]
            )
            ax_e.plot(s["cpus"], s["efficiency"], marker="o", ls=style, color=colour, label=name)
        cores = sorted(rows["cpus"].dropna().unique())
        ref = rows["reference_cpus"].min()
        ax_s.plot(cores, [c / ref for c in cores], ls=":", color="#888888", label="ideal")
        ax_e.axhline(1.0, ls="--", color="#1a1a1a", lw=1)
        for ax in (ax_s, ax_e):
            ax.set_xscale("log", base=2)
            ax.set_xticks(cores, [str(int(c)) for c in cores])
            ax.minorticks_off()
            ax.set_xlabel("cores")
        ax_s.set_title(f"Speed-up: {workload}")
        ax_s.set_ylabel(f"time at {int(ref)} core(s) / time")
        ax_e.set_title(f"Parallel efficiency: {workload}")
        ax_e.set_ylabel("speed-up / (cores / reference cores)")
        ax_e.set_ylim(0, max(1.1, float(rows["efficiency"].max()) * 1.1))
        ax_s.legend(fontsize=7)
    return fig


def software(se: pd.DataFrame, workload: str) -> Figure:
    rows = se[se["workload"] == workload].reset_index(drop=True)
    labels = [
        f"{r.variant} ({r.variant_settings})\nvs {r.reference} ({r.reference_settings})"
        for r in rows.itertuples()
    ]
    fig, (ax,) = _figure(8, 0.6 * len(rows) + 1.4)
    with mpl.rc_context(BASE_STYLE):
        ax.grid(False)
        ax.grid(axis="x", color="#e5e5e5")
        ratio_bars(
            ax,
            rows["time_ratio"],
            rows["time_ratio_ci_low"],
            rows["time_ratio_ci_high"],
            labels,
            "#74c476",
        )
        ax.set_xlabel("time with the setting / time with the default (below 1: the setting helps)")
        ax.set_title(f"Software settings: {workload}")
    return fig


def peak(pk: pd.DataFrame) -> Figure:
    rows = pk[pk["measured"]].reset_index(drop=True)
    labels = [f"{r.workload}: {r.config_label}" for r in rows.itertuples()]
    fig, (ax,) = _figure(8, 0.4 * len(rows) + 1.4)
    with mpl.rc_context(BASE_STYLE):
        ax.grid(False)
        ax.grid(axis="x", color="#e5e5e5")
        ax.barh(range(len(rows)), rows["fraction_of_peak"] * 100, color="#6baed6")
        for i, v in enumerate(rows["fraction_of_peak"]):
            ax.annotate(
                f"{v:.1%}",
                (v * 100, i),
                xytext=(4, 0),
                textcoords="offset points",
                va="center",
                fontsize=7,
            )
        ax.set_yticks(range(len(rows)), labels)
        ax.invert_yaxis()
        ax.set_xlabel("achieved GFLOP/s as % of the machine's measured matmul peak")
        ax.set_title("Fraction of machine peak")
    return fig


def curves(model: str, histories: dict[str, dict[str, list[float]]]) -> Figure:
    """Loss and accuracy per epoch, the two frameworks side by side (train solid, val dashed)."""
    fig, (ax_l, ax_a) = _figure(10, 3.6, 2)
    with mpl.rc_context(BASE_STYLE):
        for backend, history in histories.items():
            colour = backends.colour(backend, histories)
            for ax, metric in ((ax_l, "loss"), (ax_a, "accuracy")):
                for prefix, style in (("", "-"), ("val_", "--")):
                    # Epochs between validations hold null (validate_every): not drawn.
                    points = [
                        (epoch, v)
                        for epoch, v in enumerate(history.get(prefix + metric) or [], start=1)
                        if v is not None
                    ]
                    if points and not any(math.isnan(v) for _, v in points):
                        epochs, values = zip(*points, strict=True)
                        ax.plot(
                            epochs,
                            values,
                            ls=style,
                            marker="o",
                            ms=3,
                            color=colour,
                            label=f"{backend} {'validation' if prefix else 'training'}",
                        )
        ax_l.set_title(f"Loss: {model}")
        ax_a.set_title(f"Accuracy: {model}")
        for ax in (ax_l, ax_a):
            ax.xaxis.set_major_locator(MaxNLocator(integer=True))
            ax.set_xlabel("epoch")
            ax.legend(fontsize=7)
    return fig
