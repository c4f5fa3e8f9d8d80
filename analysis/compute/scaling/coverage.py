"""Do the scaling model's intervals cover? Leave one core count out and see.

For every series with at least MIN_CORE_COUNTS + 1 core counts, each core count in turn is left
out, the law is fitted to the rest and predicts it, with two intervals:
- the curve interval from epoch observations (the delta method on the law's parameters, every
  epoch counted as an observation): what the scaling model printed before;
- the run-level prediction interval of honest.py (runs as the unit, run-to-run variation in).
Coverage is the share of the intervals given that hold the measured run. Epochs of one run share
its process, placement and minute, so the first treats them as independent and is far too
narrow; docs/findings/2026-12-01-scaling-coverage.md has the figures.

    python -m analysis.compute.scaling.coverage <2017 logs>
"""

from __future__ import annotations

import math
import sys
from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from analysis.compute.scaling.honest import (
    MIN_CORE_COUNTS,
    OUT_OF_RANGE,
    prediction_interval,
    run_observations,
)
from analysis.compute.scaling.laws import LAWS, Fit, choose, fit
from analysis.compute.scaling.observations import observations
from analysis.compute.scaling.series import series_runs


def curve_interval(f: Fit, n: float, confidence: float) -> tuple[float, float, float] | None:
    """The interval the scaling model prints today: the curve's, from epoch observations."""
    if not f.ok or f.dof <= 0:
        return None
    lt, se = float(f.log_time(n)), float(f.log_time_se(n)[0])
    if not math.isfinite(se):
        return None
    q = f.t_quantile(confidence)
    return math.exp(lt), math.exp(lt - q * se), math.exp(lt + q * se)


def leave_one_out(
    hardware: pd.DataFrame, runs: pd.DataFrame, confidence: float = 0.95
) -> pd.DataFrame:
    """One row per series and held-out core count: both intervals and whether each covers."""
    rows = []
    for key, _series, chosen_runs in series_runs(hardware, runs):
        core_counts = sorted(chosen_runs["cpus"].astype(float).unique())
        if len(core_counts) < MIN_CORE_COUNTS + 1:
            continue
        for held in core_counts:
            train, test = (
                chosen_runs[chosen_runs["cpus"] != held],
                chosen_runs[chosen_runs["cpus"] == held],
            )
            measured = float(np.median(run_observations(test)[1]))
            rows.append({**key, "holdout_cpus": held, "measured_time": measured,
                         **_both(train, held, measured, confidence)})  # fmt: skip
    return pd.DataFrame(rows)


def _both(
    train: pd.DataFrame, held: float, measured: float, confidence: float
) -> dict[str, object]:
    row: dict[str, object] = {}
    epoch_cores, epoch_times = observations(train)
    epoch_fit = choose([fit(law, epoch_cores, epoch_times) for law in LAWS])
    curve = curve_interval(epoch_fit, held, confidence) if epoch_fit else None
    row["curve_law"] = epoch_fit.law.name if epoch_fit else None
    row["curve_low"], row["curve_high"] = (curve[1], curve[2]) if curve else (None, None)
    row["curve_covered"] = None if curve is None else bool(curve[1] <= measured <= curve[2])

    run_cores, run_times = run_observations(train)
    run_fit = choose([fit(law, run_cores, run_times) for law in LAWS])
    pred = prediction_interval(run_fit, held, run_cores, confidence) if run_fit else None
    row["run_law"] = run_fit.law.name if run_fit else None
    row["predicted_time"] = pred[0] if pred else None
    row["run_low"], row["run_high"] = (pred[1], pred[2]) if pred else (None, None)
    row["run_covered"] = None if pred is None else bool(pred[1] <= measured <= pred[2])
    row["run_status"] = "interval" if pred else OUT_OF_RANGE
    return row


def coverage(table: pd.DataFrame) -> dict[str, object]:
    """Share of the given intervals that hold the measured run, for each method."""
    out: dict[str, object] = {"held_out": len(table)}
    for method in ("curve", "run"):
        given = table[f"{method}_covered"].dropna()
        out[f"{method}_intervals"] = int(given.size)
        out[f"{method}_covered"] = int(given.sum())
        out[f"{method}_coverage"] = float(given.mean()) if given.size else None
    return out


def markdown(table: pd.DataFrame, summary: dict[str, object]) -> str:
    lines = [
        "| workload | settings | held out | measured (s) | curve interval, epochs (s) | covers "
        "| run-level prediction interval (s) | covers |",
        "|---|---|---:|---:|---:|---|---:|---|",
    ]

    def cell(low: object, high: object) -> str:
        return "-" if low is None or pd.isna(low) else f"{low:.0f} to {high:.0f}"

    def yes(v: object) -> str:
        return "-" if v is None or pd.isna(v) else ("yes" if v else "no")

    for _, r in table.iterrows():
        run = cell(r["run_low"], r["run_high"]) if r["run_status"] == "interval" else OUT_OF_RANGE
        lines.append(
            f"| {r['workload']} | {r['settings_label']} | {r['holdout_cpus']:g} | "
            f"{r['measured_time']:.0f} | {cell(r['curve_low'], r['curve_high'])} | "
            f"{yes(r['curve_covered'])} | {run} | {yes(r['run_covered'])} |"
        )
    s = summary
    lines.append("")
    for method, name in (("curve", "curve interval (epochs)"), ("run", "run-level prediction")):
        cov = s[f"{method}_coverage"]
        shown = "n/a" if cov is None else f"{cov:.0%}"
        lines.append(
            f"{name}: {s[f'{method}_covered']} of {s[f'{method}_intervals']} intervals cover "
            f"({shown}) over {s['held_out']} held-out core counts"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    from analysis.compute import effects, summary
    from analysis.load.table import runs_table

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print("usage: python -m analysis.compute.scaling.coverage <2017 logs>", file=sys.stderr)
        return 2
    runs = runs_table([Path(args[0])])
    hardware = effects.hardware(summary.configs(runs, "train_time", 0.1))
    table = leave_one_out(hardware, runs)
    print(markdown(table, coverage(table)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
