"""The three effects twinbench separates, each from the per-configuration summary.

- framework: the reference backend's time / each other backend's, on the same machine, workload,
  device, cores, threads (analysis/load/backends.py: which backends, and the reference);
- hardware: speed-up and parallel efficiency against cores, per framework and settings, paired
  by round where an interleaved sweep ran each round's core counts back to back;
- software: a setting variant's time / the default variant's, all else equal.
Ratios of medians with Welch t-intervals on the logs of the repeats (twinbench.stats.ratio_ci); a
framework ratio whose runs were interleaved (an interleaved sweep's pair_id) is instead the
median of the pairs' ratios with its exact order-statistic interval (analysis/compute/paired.py's
rule); pairs from several sweeps take the sweep as the unit (twinbench.stats.sessions_ratio).
A verdict reads its interval at the decision engine's margin (analysis/compute/outcome.py).
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from analysis.compute import outcome, paired, sessions
from analysis.compute import rounds as rounds_of
from analysis.load import backends
from twinbench import stats
from twinbench.sequential import Design

SAME_CELL = [
    "source",
    "workload",
    "machine",
    "device",
    "cpus",
    "threads_intra_requested",
    "threads_inter_requested",
]
SCALING_GAP = 0.10  # speed-ups differing by more than this are called "scaling differently"


INT_COLUMNS = (
    "cpus",
    "reference_cpus",
    "threads_intra_requested",
    "threads_inter_requested",
    "n_ok",
    "n_reference",
    "n_other",
    "ratio_pairs",
    "ratio_sweeps",
    "speedup_sweeps",
    "speedup_rounds",
    "steady_step_ratio_pairs",
    "steady_step_ratio_sweeps",
)


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows -> DataFrame with core and thread counts as integers (groupby makes them floats)."""
    df = pd.DataFrame(rows)
    for column in INT_COLUMNS:
        if column in df:
            df[column] = pd.to_numeric(df[column], errors="coerce").astype("Int64")
    return df


def _ratio(a: list[float], b: list[float]) -> tuple[float, float, float]:
    if not a or not b:
        return (math.nan, math.nan, math.nan)
    ratio, lo, hi = stats.ratio_ci(a, b)
    return ratio, (math.nan if lo is None else lo), (math.nan if hi is None else hi)


def _paired(
    a: list[float], a_ids: list[str | None], b: list[float], b_ids: list[str | None]
) -> tuple[float, float, float, int, int] | None:
    """Median of the ratios of runs measured back to back (one pair_id), with the exact
    order-statistic interval; None where that interval cannot reach 95% (below six pairs: with
    two it is their [min, max], a 50% interval, and read at the margin it named a side faster in
    16% of A/A pairs of real runs, measurements/2026-12-07/analysis-margin), where independent
    repeats' interval decides instead. Pairs from two or more sweeps are not one sample (a
    session's phase moves all its pairs): each sweep gives one value and the interval is over
    sweeps. The last two items: the pairs, and the sweeps they came from."""
    b_by_pair = {p: v for p, v in zip(b_ids, b, strict=True) if p is not None}
    matched = [(p, v / b_by_pair[p]) for p, v in zip(a_ids, a, strict=True) if p in b_by_pair]
    if len(matched) < 2:
        return None
    sweeps = [paired.series_of(p) for p, _ in matched]
    ratios = [r for _, r in matched]
    if len(set(sweeps)) > 1:
        s = stats.sessions_ratio(ratios, sweeps)
    else:
        s = stats.paired_ratio(ratios, [1.0] * len(ratios))
        if s.confidence < stats.CONFIDENCE:
            return None
    return s.median, s.ci_low, s.ci_high, len(matched), len(set(sweeps))


def _ratio_of(a: pd.Series, b: pd.Series, kind: str) -> tuple[float, float, float, int, int]:
    """reference / other for samples `kind` ("" or "step_"): paired where the runs were
    interleaved (the machine's drift cancels within a pair), else a ratio of medians over
    independent repeats. The last items are the number of pairs (0: not paired) and of the
    sweeps they came from."""
    samples = "samples" if kind == "" else "step_samples"
    ids = "sample_pairs" if kind == "" else "step_pairs"
    if ids in a and ids in b and isinstance(a[ids], list) and isinstance(b[ids], list):
        found = _paired(a[samples], a[ids], b[samples], b[ids])
        if found is not None:
            return found
    return (*_ratio(a[samples], b[samples]), 0, 0)


def default_variant(cell: pd.DataFrame) -> pd.Series:
    """The configuration standing for a backend's out-of-the-box behaviour in a cell.

    Marked default (opt=default, pip in 2017) first, then the most measured, then by label.
    """
    ranked = cell.assign(
        d=(cell["settings_default"] != True).astype(int),  # noqa: E712
        k=pd.to_numeric(cell["settings_changes"], errors="coerce").fillna(0),
        n=-cell["n_ok"],
    ).sort_values(["d", "k", "n", "config_label"], kind="stable")
    return ranked.iloc[0]


def framework(
    summary: pd.DataFrame,
    width: float = stats.UNSTABLE_REL_WIDTH,
    reference: str = backends.DEFAULT_REFERENCE,
    design: Design | None = None,
) -> pd.DataFrame:
    """The reference backend's time / each other backend's, per cell, for every pair of
    settings variants. Columns name the sides `reference_*` and `other_*` (the backends in
    `reference` and `other`), so any number of backends fit one table. `design`: the margin the
    verdicts read their intervals at (None: conf/decision/default.yaml's)."""
    if summary.empty or "backend" not in summary:
        return _frame([])
    pairing = backends.reference_and_others(summary["backend"].unique(), reference)
    if pairing is None:
        return _frame([])
    first, others = pairing
    rows = []
    for key, cell in summary.groupby(SAME_CELL, dropna=False, sort=False):
        a_all = cell[cell["backend"] == first]
        if a_all.empty:
            continue
        a_default = default_variant(a_all)
        for second in others:
            b_all = cell[cell["backend"] == second]
            if b_all.empty:
                continue
            b_default = default_variant(b_all)
            for _, a in a_all.iterrows():
                for _, b in b_all.iterrows():
                    rows.append(
                        {
                            **dict(zip(SAME_CELL, key, strict=True)),
                            **_pair(a, b, width, design),
                            "headline": a["config_label"] == a_default["config_label"]
                            and b["config_label"] == b_default["config_label"],
                        }
                    )
    return _frame(rows)


def _label(row: pd.Series) -> str:
    label = row.get("backend_label")
    return str(label) if isinstance(label, str) and label else str(row["backend"])


def _pair(a: pd.Series, b: pd.Series, width: float, design: Design | None) -> dict[str, Any]:
    """One reference configuration `a` against one other `b`: times and their ratio a / b."""
    ratio, lo, hi, pairs, sweeps = _ratio_of(a, b, "")
    step, step_lo, step_hi, step_pairs, step_sweeps = _ratio_of(a, b, "step_")
    return {
        "reference": a["backend"],
        "other": b["backend"],
        "reference_label": _label(a),
        "other_label": _label(b),
        "reference_config": a["config_label"],
        "other_config": b["config_label"],
        "reference_settings": a["settings_label"],
        "other_settings": b["settings_label"],
        "reference_time": a["time"],
        "other_time": b["time"],
        "n_reference": a["n_ok"],
        "n_other": b["n_ok"],
        "ratio": ratio,
        "ratio_ci_low": lo,
        "ratio_ci_high": hi,
        "ratio_pairs": pairs,  # interleaved pairs behind the ratio; 0: independent repeats
        "ratio_sweeps": sweeps,  # the sweeps they came from; above 1: the sweep is the unit
        "steady_step_ratio": step,
        "steady_step_ratio_ci_low": step_lo,
        "steady_step_ratio_ci_high": step_hi,
        "steady_step_ratio_pairs": step_pairs,
        "steady_step_ratio_sweeps": step_sweeps,
        "verdict": outcome.table_verdict(ratio, lo, hi, width, a["backend"], b["backend"], design),
    }


SERIES = ["source", "workload", "machine", "backend", "settings", "settings_label"]


def hardware(summary: pd.DataFrame) -> pd.DataFrame:
    """Speed-up T(fewest cores) / T(n) and efficiency speed-up / (n / fewest), per series.

    Only CPU runs with the default thread counts (threads = cores) form a series: a run with
    other thread counts measures the threads, not the cores.
    """
    cpu = summary[(summary["device"] == "cpu") & (summary["n_ok"] > 0)]

    def as_cores(column: str) -> pd.Series:
        threads = pd.to_numeric(cpu[column], errors="coerce")
        return (threads.isna() | (threads == pd.to_numeric(cpu["cpus"]))).fillna(False)

    cpu = cpu[as_cores("threads_intra_requested") & as_cores("threads_inter_requested")]
    rows = []
    for key, series in cpu.groupby(SERIES, dropna=False, sort=False):
        series = series.sort_values("cpus")
        if series["cpus"].nunique() < 2:
            continue
        ref = series.iloc[0]
        for _, row in series.iterrows():
            paired_by_round = rounds_of.paired_speedup(ref, row)
            if paired_by_round is not None:
                speedup, lo, hi, sweeps, rounds = paired_by_round
            else:
                speedup, lo, hi = _ratio(ref["samples"], row["samples"])
                sweeps = rounds = 0
                over = sessions.ratio_over_sweeps(
                    ref["samples"],
                    ref.get("sample_sweeps"),
                    row["samples"],
                    row.get("sample_sweeps"),
                )
                if over is not None:  # runs of several sweeps: each sweep one value
                    speedup, lo, hi, sweeps = over
            if row["config_label"] == ref["config_label"]:
                lo, hi, sweeps, rounds = math.nan, math.nan, 0, 0  # 1 by definition
            scale = row["cpus"] / ref["cpus"]
            rows.append(
                {
                    **dict(zip(SERIES, key, strict=True)),
                    "config_label": row["config_label"],
                    "cpus": row["cpus"],
                    "reference_cpus": ref["cpus"],
                    "time": row["time"],
                    "speedup": speedup,
                    "speedup_ci_low": lo,
                    "speedup_ci_high": hi,
                    "speedup_sweeps": sweeps,  # above 1: the sweeps that measured both
                    "speedup_rounds": rounds,  # rounds paired; 0: independent runs
                    "efficiency": speedup / scale,
                    "efficiency_ci_low": lo / scale,
                    "efficiency_ci_high": hi / scale,
                    "n_ok": row["n_ok"],
                }
            )
    return _frame(rows)


def scaling_gap(
    hw: pd.DataFrame, summary: pd.DataFrame, reference: str = backends.DEFAULT_REFERENCE
) -> pd.DataFrame:
    """Where backends scale differently: the reference's speed-up / each other backend's."""
    if hw.empty:
        return pd.DataFrame()
    pairing = backends.reference_and_others(hw["backend"].unique(), reference)
    if pairing is None:
        return pd.DataFrame()
    first, others = pairing
    defaults = {
        (k[0], k[1], k[2], k[3]): default_variant(g)["settings"]
        for k, g in summary.groupby(["source", "workload", "machine", "backend"], dropna=False)
    }
    hw = hw[
        [
            defaults.get((r.source, r.workload, r.machine, r.backend)) == r.settings
            for r in hw.itertuples()
        ]
    ]
    rows: list[dict[str, Any]] = []
    for key, cell in hw.groupby(["source", "workload", "machine", "cpus"], sort=False):
        for second in others:
            a, b = cell[cell["backend"] == first], cell[cell["backend"] == second]
            if a.empty or b.empty or a["reference_cpus"].iloc[0] != b["reference_cpus"].iloc[0]:
                continue
            a, b = a.iloc[0], b.iloc[0]
            if a["cpus"] == a["reference_cpus"]:
                continue
            rows.append(
                {
                    **dict(zip(["source", "workload", "machine", "cpus"], key, strict=True)),
                    **_gap(a, b, first, second),
                }
            )
    return _frame(rows)


def _gap(a: pd.Series, b: pd.Series, first: str, second: str) -> dict[str, Any]:
    gap = a["speedup"] / b["speedup"]
    separated = not (
        math.isnan(a["speedup_ci_low"])
        or math.isnan(b["speedup_ci_low"])
        or (
            a["speedup_ci_low"] <= b["speedup_ci_high"]
            and b["speedup_ci_low"] <= a["speedup_ci_high"]
        )
    )
    if abs(gap - 1) <= SCALING_GAP and not separated:
        verdict = "scale alike"
    else:
        verdict = f"{first if gap > 1 else second} scales better"
        if math.isnan(a["speedup_ci_low"]) or math.isnan(b["speedup_ci_low"]):
            verdict += " (single runs: indicative)"
        elif not separated:
            verdict += " (intervals overlap)"
    return {
        "reference": first,
        "other": second,
        "reference_cpus": a["reference_cpus"],
        "reference_speedup": a["speedup"],
        "other_speedup": b["speedup"],
        "reference_efficiency": a["efficiency"],
        "other_efficiency": b["efficiency"],
        "speedup_ratio": gap,
        "verdict": verdict,
    }


VARIANT_CELL = [
    "source",
    "workload",
    "machine",
    "backend",
    "device",
    "cpus",
    "threads_intra_requested",
    "threads_inter_requested",
]


def software(
    summary: pd.DataFrame, width: float = stats.UNSTABLE_REL_WIDTH, design: Design | None = None
) -> pd.DataFrame:
    """Each settings variant against its backend's default variant, all else equal (`design`: as
    framework()'s)."""
    rows = []
    ok = summary[summary["n_ok"] > 0]
    for key, cell in ok.groupby(VARIANT_CELL, dropna=False, sort=False):
        if cell["settings"].nunique() < 2:
            continue
        ref = default_variant(cell)
        for _, row in cell.iterrows():
            if row["config_label"] == ref["config_label"]:
                continue
            ratio, lo, hi = _ratio(row["samples"], ref["samples"])
            rows.append(
                {
                    **dict(zip(VARIANT_CELL, key, strict=True)),
                    "reference": ref["config_label"],
                    "reference_settings": ref["settings_label"],
                    "variant": row["config_label"],
                    "variant_settings": row["settings_label"],
                    "reference_time": ref["time"],
                    "variant_time": row["time"],
                    "time_ratio": ratio,
                    "time_ratio_ci_low": lo,
                    "time_ratio_ci_high": hi,
                    "verdict": outcome.table_verdict(
                        ratio, lo, hi, width, "variant", "reference", design
                    ),
                }
            )
    return _frame(rows)


def peak(summary: pd.DataFrame) -> pd.DataFrame:
    """Achieved GFLOP/s against the machine's measured matmul peak, where runs measured it."""
    cols = ["median_achieved_gflops", "median_peak_gflops", "median_fraction_of_peak"]
    out = summary[["source", "workload", "config_label", "n_ok", *cols]].copy()
    out.columns = [
        "source",
        "workload",
        "config_label",
        "n_ok",
        "achieved_gflops",
        "peak_gflops",
        "fraction_of_peak",
    ]
    out["measured"] = out["fraction_of_peak"].notna()
    return out
