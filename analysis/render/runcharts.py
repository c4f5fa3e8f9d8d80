"""Figures of what happened inside runs (analysis/compute/rundetail.py's rows): epoch times, the
distribution of steady step times, throughput, validation accuracy against wall-clock time and
the start-up phases. One colour per configuration, the same in every panel."""

from __future__ import annotations

import matplotlib as mpl
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from analysis.compute.rundetail import STARTUP_PHASES
from analysis.render.charts import BASE_STYLE, _figure

PHASE_COLOURS = ["#bdbdbd", "#74c476", "#6baed6", "#fd8d3c", "#fdd0a2", "#9e9ac8", "#e7e7e7"]


def _palette(n: int) -> list:
    cmap = mpl.colormaps["tab10"]
    return [cmap(i % 10) for i in range(n)]


def epochs_steps_throughput(rows: pd.DataFrame, workload: str) -> Figure:
    """Time per epoch, steady step times (box: quartiles, whiskers 5-95%), samples per second."""
    fig, (ax_e, ax_s, ax_t) = _figure(12, 3.4, 3)
    labels = [str(v) for v in rows["config_label"]]
    colours = _palette(len(rows))
    with mpl.rc_context(BASE_STYLE):
        for (_, r), colour, label in zip(rows.iterrows(), colours, labels, strict=True):
            times = r["epoch_times_s"]
            if times:
                ax_e.plot(range(1, len(times) + 1), times, marker="o", ms=3, color=colour,
                          label=label)  # fmt: skip
        ax_e.set_title(f"Time per epoch: {workload}")
        ax_e.set_xlabel("epoch")
        ax_e.set_ylabel("s (validation included)")
        ax_e.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax_e.set_ylim(bottom=0)
        ax_e.legend(fontsize=7)

        steps = [r["steady_step_ms"] for _, r in rows.iterrows()]
        shown = [i for i, s in enumerate(steps) if s]
        if shown:
            box = ax_s.boxplot([steps[i] for i in shown], orientation="horizontal", whis=(5, 95),
                               showfliers=False, patch_artist=True)  # fmt: skip
            for patch, i in zip(box["boxes"], shown, strict=True):
                patch.set_facecolor(colours[i])
                patch.set_alpha(0.6)
            ax_s.set_yticks(range(1, len(shown) + 1), [labels[i] for i in shown])
            medians = [pd.Series(steps[i]).median() for i in shown]
            if max(medians) > 20 * min(medians) > 0:  # one slow configuration: log scale
                ax_s.set_xscale("log")
        else:
            ax_s.text(0.5, 0.5, "no steps.json beside these results", ha="center",
                      transform=ax_s.transAxes)  # fmt: skip
        ax_s.set_title("Steady step time distribution")
        ax_s.set_xlabel("ms per step")
        ax_s.grid(axis="x", color="#e5e5e5")

        rates = pd.to_numeric(rows["steady_samples_per_s"], errors="coerce")
        if rates.notna().any():
            ax_t.barh(range(len(rows)), rates.fillna(0), color=colours)
            ax_t.set_yticks(range(len(rows)), labels)
            for i, v in enumerate(rates):
                if pd.notna(v):
                    ax_t.text(v, i, f" {v:,.0f}", va="center", fontsize=8)
        else:
            ax_t.text(0.5, 0.5, "not recorded", ha="center", transform=ax_t.transAxes)
        ax_t.set_title("Throughput (steady state)")
        ax_t.set_xlabel("samples / s")
        ax_t.grid(axis="x", color="#e5e5e5")
        for ax in (ax_s, ax_t):
            ax.invert_yaxis()
    return fig


def wallclock_curves(rows: pd.DataFrame, workload: str, target: float | None) -> Figure:
    """Validation accuracy and loss at the end of each epoch against the wall-clock time spent
    training so far: which configuration gets there first."""
    fig, (ax_a, ax_l) = _figure(10, 3.4, 2)
    with mpl.rc_context(BASE_STYLE):
        for (_, r), colour in zip(rows.iterrows(), _palette(len(rows)), strict=True):
            elapsed = pd.Series(r["epoch_times_s"], dtype=float).cumsum().tolist()
            for ax, metric in ((ax_a, "val_accuracy"), (ax_l, "val_loss")):
                # Epochs between validations hold null (validate_every): not drawn.
                points = [(t, v) for t, v in zip(elapsed, r[metric], strict=False) if v is not None]
                if points:
                    ax.plot(*zip(*points, strict=True), marker="o", ms=3, color=colour,
                            label=str(r["config_label"]))  # fmt: skip
        if target is not None:
            ax_a.axhline(target, ls="--", color="#444", lw=1, label=f"target {target:g}")
        ax_a.set_title(f"Validation accuracy vs wall-clock: {workload}")
        ax_l.set_title("Validation loss vs wall-clock")
        for ax in (ax_a, ax_l):
            ax.set_xlabel("training wall-clock time (s)")
            ax.set_xlim(left=0)
            # Runs that never validated (resident workers) draw nothing: an empty legend warned
            # on the first screen of the sweep that reported them.
            if ax.get_legend_handles_labels()[0]:
                ax.legend(fontsize=7)
            else:
                ax.text(0.5, 0.5, "no validation recorded", ha="center", transform=ax.transAxes)
    return fig


def startup_phases(rows: pd.DataFrame) -> Figure:
    """Where a run's start-up goes, phase by phase, per configuration (median-free: one run)."""
    labels = [f"{w}: {c}" for w, c in zip(rows["workload"], rows["config_label"], strict=True)]
    fig, (ax,) = _figure(10, 0.45 * len(rows) + 1.2)
    with mpl.rc_context(BASE_STYLE):
        left = pd.Series(0.0, index=range(len(rows)))
        for phase, colour in zip(STARTUP_PHASES, PHASE_COLOURS, strict=True):
            values = pd.to_numeric(rows[f"startup_{phase}_s"], errors="coerce").fillna(0)
            values.index = left.index
            ax.barh(range(len(rows)), values, left=left, color=colour,
                    label=phase.replace("_", " "))  # fmt: skip
            left = left + values
        ax.set_yticks(range(len(rows)), labels)
        ax.invert_yaxis()
        ax.set_xlabel("seconds from the worker's spawn to the end of the first step")
        ax.set_title("Start-up, phase by phase")
        ax.grid(axis="x", color="#e5e5e5")
        ax.legend(fontsize=7, ncols=len(STARTUP_PHASES), loc="upper center",
                  bbox_to_anchor=(0.5, -0.12 - 0.6 / (len(rows) + 2)))  # fmt: skip
    return fig


def batch_sweep(model: str, sweep: pd.DataFrame) -> Figure:
    """Throughput and step time against batch size, one line per configuration."""
    fig, (ax_t, ax_s) = _figure(10, 3.4, 2)
    with mpl.rc_context(BASE_STYLE):
        configs = list(dict.fromkeys(sweep["config_label"]))
        for label, colour in zip(configs, _palette(len(configs)), strict=True):
            rows = sweep[sweep["config_label"] == label]
            for ax, column in ((ax_t, "samples_per_s"), (ax_s, "step_ms")):
                ax.plot(rows["batch_size"], rows[column], marker="o", ms=4, color=colour,
                        label=str(label))  # fmt: skip
        ax_t.set_title(f"Throughput by batch size: {model}")
        ax_t.set_ylabel("steady samples / s")
        ax_s.set_title("Steady step time by batch size")
        ax_s.set_ylabel("median ms per step")
        for ax in (ax_t, ax_s):
            ax.set_xscale("log", base=2)
            ax.set_xticks(sorted(sweep["batch_size"].unique()))
            ax.get_xaxis().set_major_formatter(mpl.ticker.ScalarFormatter())
            ax.set_xlabel("batch size")
            ax.set_ylim(bottom=0)
            ax.legend(fontsize=7)
    return fig
