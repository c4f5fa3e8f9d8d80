"""Per configuration and workload: the repeats of one configuration summarised.

A configuration is one machine x backend x device x cores x threads x settings; its repeats
(independent fresh-process measurements) are the samples. Centre and interval come from
twinbench.stats (median with an order-statistics interval), the same code the runs use, so a
figure in the report means what it means in the terminal of a run.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd

from analysis.load.table import CONFIG_KEYS
from twinbench import stats

METRICS = {
    # The 2017 figure: every epoch's wall time (validation included) summed over the run.
    "train_time": ("train_time_s", "training time", "the sum of epoch wall times"),
    # Median steady-state step time of each run (warm-up, tracing, compilation left out).
    "steady_step": ("steady_step_s", "steady-state step time", "each run's median step time"),
}
GROUP = ["source", "workload", "config_label"]
FIRST = [
    *CONFIG_KEYS,
    "api",
    "runtime",
    "backend_label",
    "model",
    "threads_intra_actual",
    "threads_inter_actual",
    "settings_label",
    "settings_default",
    "settings_changes",
    "legacy_label",
    "legacy_test",
]
MEDIANS = [
    "steady_step_s",
    "steady_samples_per_s",
    "achieved_gflops",
    "peak_gflops",
    "fraction_of_peak",
    "final_val_accuracy",
    "epoch_time_first_s",
]


def _median(values: pd.Series) -> float:
    values = pd.to_numeric(values, errors="coerce").dropna()
    return float(np.median(values)) if len(values) else float("nan")


# A run's own flags (analysis/load/records.py columns) as a configuration's flags name them.
RUN_FLAGS = {
    "drifting": "drift within a run",
    "subnormals_flagged": "subnormals computed (backend.flush_denormal)",
    "page_faults_flagged": "page faults in the steps (backend.allocator)",
    "steady_step_unstable": "unstable steady state",
}


def _count(ok: pd.DataFrame, column: str) -> int:
    """The runs whose boolean `column` is true (absent or missing: false)."""
    return int(ok.get(column, pd.Series(dtype="boolean")).fillna(False).astype(bool).sum())


def _any(ok: pd.DataFrame, column: str) -> bool:
    return _count(ok, column) > 0


def _in_runs(ok: pd.DataFrame, column: str) -> str:
    """' (k of n runs)' for a run's own flag where several runs stand behind a configuration:
    one unstable run in 27 and 27 in 27 are not the same warning."""
    return f" ({_count(ok, column)} of {len(ok)} runs)" if len(ok) > 1 else ""


def _flags(
    ok: pd.DataFrame,
    n_failed: int,
    s: stats.Summary | None,
    width: float,
    modes: dict[str, Any] | None = None,
) -> str:
    flags = []
    if n_failed:
        flags.append(f"{n_failed} failed")
    if modes and modes["multimodal"]:
        # Two groups of runs: their median describes neither, so both are named.
        lo, hi = modes["low_mode"], modes["high_mode"]
        flags.append(
            f"two modes across runs (gap test p={modes['p_value']:.3f}): {lo['n']} near "
            f"{lo['median']:.4g}, {hi['n']} near {hi['median']:.4g}"
        )
    if s is not None and s.n < 2:
        flags.append("single run")
    elif s is not None and s.rel_ci_width > width:
        flags.append(f"unstable: interval {s.rel_ci_width:.0%} of median")
    for column, text in RUN_FLAGS.items():
        if _any(ok, column):
            flags.append(text + _in_runs(ok, column))
    if (ok.get("threads_verified", pd.Series(dtype="boolean")) == False).any():  # noqa: E712
        flags.append("threads not as requested")
    if ok["config_hash"].nunique() > 1:
        # e.g. other seeds, or records from an older twinbench: still compared, but said
        flags.append(f"{ok['config_hash'].nunique()} different configs merged")
    if (ok.get("conflict", pd.Series(dtype="string")).fillna("") != "").any():
        flags.append("incompatible records")
    return "; ".join(flags)


def _per_sample(ok: pd.DataFrame, values: pd.Series, column: str = "pair_id") -> list[str | None]:
    """A text `column` (the pair_id, or the sweep) of every run whose value is a sample, in the
    samples' order."""
    ids = ok[column] if column in ok else pd.Series(None, index=ok.index, dtype=object)
    return [p if isinstance(p, str) else None for p in ids[values.notna()]]


def configs(
    runs: pd.DataFrame, metric: str = "train_time", unstable_width: float = stats.UNSTABLE_REL_WIDTH
) -> pd.DataFrame:
    """One row per (source, workload, configuration), failed-only configurations included."""
    column = METRICS[metric][0]
    rows: list[dict[str, Any]] = []
    for key, group in runs.groupby(GROUP, dropna=False, sort=False):
        ok = group[group["status"] == "ok"]
        values = pd.to_numeric(ok[column], errors="coerce")
        samples = [float(v) for v in values.dropna()]
        s = stats.summarize(samples, unstable_rel_width=unstable_width) if samples else None
        modes = stats.modes(samples)
        first = ok.iloc[0] if len(ok) else group.iloc[0]  # a failed record knows less
        row: dict[str, Any] = dict(zip(GROUP, key, strict=True))
        row.update({c: first.get(c) for c in FIRST})
        row.update(
            n_runs=len(group),
            n_ok=len(ok),
            n_failed=len(group) - len(ok),
            errors=" | ".join(sorted({str(e) for e in group["error"].dropna()})),
            samples=samples,
            time=s.median if s else float("nan"),
            time_ci_low=s.ci_low if s and s.n > 1 else float("nan"),
            time_ci_high=s.ci_high if s and s.n > 1 else float("nan"),
            time_ci_confidence=s.confidence if s and s.n > 1 else float("nan"),
            time_rel_ci_width=s.rel_ci_width if s and s.n > 1 else float("nan"),
            # The interval's own verdict, or any run that said its steady state was not steady.
            unstable=(bool(s.unstable) if s else True)
            or _any(ok, "drifting")
            or _any(ok, "steady_step_unstable"),
            multimodal=bool(modes["multimodal"]),
            flags=_flags(ok, len(group) - len(ok), s, unstable_width, modes),
            step_samples=[float(v) for v in ok["steady_step_s"].dropna()],
            # Each sample's interleaved round (None where the sweep did not pair it), so the
            # framework effect can take paired ratios (analysis/compute/effects.py).
            sample_pairs=_per_sample(ok, values),
            step_pairs=_per_sample(ok, ok["steady_step_s"]),
            # Each sample's sweep: where runs of several sweeps meet, a sweep is one value
            # (analysis/compute/sessions.py).
            sample_sweeps=_per_sample(ok, values, "sweep"),
        )
        row.update({f"median_{c}": _median(ok.get(c, pd.Series(dtype=float))) for c in MEDIANS})
        for c in (c for c in runs.columns if c.startswith(("startup_", "budget_"))):
            row[f"median_{c}"] = _median(ok[c])
        rows.append(row)
    return pd.DataFrame(rows)
