"""The verdict: one line per workload, core count and backend pair (the reference backend against
each other one, analysis/load/backends.py) saying which is faster, by how
much, with its interval and metric; and, where the training-time and steady-state verdicts
point different ways, which part of the time budget (twinbench.result.budget) makes them disagree.
A side is faster only where the whole interval lies beyond the decision engine's margin, and the
two are equivalent where it lies within it (analysis/compute/outcome.py).

Headline metric: the analysis' metric (training time by default, the 2017 figure), except
where a run was capped with `max_steps`: a capped run's training time is a handful of steps
plus the framework's start-up, so it measures start-up more than training; there the steady-
state step time leads and the training-time verdict is given beside it.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import pandas as pd

from analysis.compute import effects, outcome, summary
from analysis.load import backends
from twinbench import stats
from twinbench.result import budget
from twinbench.sequential import Design

# What a budget part's excess says about a framework, when it alone flips the verdict.
CAUSES = {
    "first_step": "a start-up effect (tracing or compilation), not throughput",
    "warmup": "a warm-up effect (early and epoch-first steps), not throughput",
    "steady_spread": "uneven steady steps (stragglers or noise), not the median step",
    "remainder": "per-epoch overhead (callbacks, data iterator), not throughput",
    "validation": "a validation effect, not training throughput",
}


@dataclass(frozen=True)
class Verdict:
    workload: str
    machine: str
    where: str  # "cpu2" or "gpu"
    metric: str  # the headline metric's name
    line: str
    disagreement: str | None = None  # why training time and steady state disagree


def _faster(row: pd.Series, ratio: float) -> tuple[str, float]:
    """The faster backend and its speed-up factor from a reference / other time ratio."""
    return (row["reference"], 1 / ratio) if ratio < 1 else (row["other"], ratio)


def _names(row: pd.Series) -> dict[str, str]:
    """How the verdict names the row's two backends: their labels."""
    return {row["reference"]: row["reference_label"], row["other"]: row["other_label"]}


def _interval(row: pd.Series, prefix: str, design: Design | None = None) -> str:
    lo, hi = row[f"{prefix}_ci_low"], row[f"{prefix}_ci_high"]
    if math.isnan(lo):
        return "single runs: no interval"
    names = _names(row)
    pair = f"{names[row['reference']]}/{names[row['other']]}"
    note = ""
    if outcome.of_ratio(lo, hi, design) == outcome.UNDECIDED:
        why = outcome.undecided_detail(lo, hi, names[row["reference"]], names[row["other"]], design)
        note = ", includes 1: no clear difference" if lo <= 1 <= hi else f": {why}"
    return f"95% CI of {pair} [{lo:.2f}, {hi:.2f}]{over_sweeps(row, prefix)}{note}"


def over_sweeps(row: pd.Series, prefix: str) -> str:
    """' over N sweeps' where the interval took each of N sweeps' pairs as one value."""
    sweeps = row.get(f"{prefix}_sweeps")
    return f" over {int(sweeps)} sweeps" if pd.notna(sweeps) and sweeps > 1 else ""


def _phrase(row: pd.Series, prefix: str, metric: str, design: Design | None = None) -> str:
    """The verdict on one metric, at the decision engine's margin (analysis/compute/outcome.py):
    a side faster only where the whole interval lies beyond the margin."""
    ratio = row[prefix]
    if math.isnan(ratio):
        return f"no {metric} to compare"
    side, factor = _faster(row, ratio)
    names = _names(row)
    slower = row["other"] if side == row["reference"] else row["reference"]
    found = outcome.of_ratio(row[f"{prefix}_ci_low"], row[f"{prefix}_ci_high"], design)
    both = f"{names[row['reference']]} and {names[row['other']]}"
    if found == outcome.EQUIVALENT:
        return (
            f"{both} equivalent within {outcome.margin_words(design)} on {metric} "
            f"({_interval(row, prefix, design)})"
        )
    if found in (outcome.NONE, outcome.UNDECIDED):  # nothing is decided
        return (
            f"undecided between {both} on {metric} "
            f"(point ratio: {names[side]} {factor:.2f}x faster; {_interval(row, prefix, design)})"
        )
    # Both sides named: with more than two backends a cell has one line per other backend.
    return (
        f"{names[side]} faster than {names[slower]} by {factor:.2f}x on {metric} "
        f"({_interval(row, prefix, design)})"
    )


def _budget(configs: pd.DataFrame, label: str, workload: str) -> dict[str, float] | None:
    row = configs[(configs["config_label"] == label) & (configs["workload"] == workload)]
    if row.empty:
        return None
    row = row.iloc[0]
    parts = {p: row.get(f"median_budget_{p}_s") for p in budget.PARTS}
    if any(v is None or (isinstance(v, float) and math.isnan(v)) for v in parts.values()):
        return None
    return {k: float(v) for k, v in parts.items()}


def explain(
    slow: str, parts: dict[str, dict[str, float] | None], names: dict[str, str] | None = None
) -> str:
    """Why `slow` (slower in training time, faster in steady state) loses on training time:
    the budget part where it spends the most beyond the other backend (`names`: how to call
    each backend; its key where absent)."""
    names = names or {}
    fast = next(b for b in parts if b != slow)
    mine, other = parts[slow], parts[fast]
    if mine is None or other is None:
        return (
            "the runs carry no time budget to say why (records from before the time budget "
            "existed); "
            "re-run to see it"
        )
    excess = {p: mine[p] - other[p] for p in CAUSES}
    cause = max(excess, key=excess.get)
    total = sum(mine.values())
    share = mine[cause] / total if total > 0 else math.nan
    other_share = other[cause] / sum(other.values()) if sum(other.values()) > 0 else math.nan
    label = budget.LABELS[cause].split(" (")[0]
    return (
        f"{names.get(slow, slow)}'s {label} is {share:.0%} of its training time "
        f"({names.get(fast, fast)}'s: {other_share:.0%}): {CAUSES[cause]}"
    )


def capped_steps(runs: pd.DataFrame) -> list[int]:
    """The max_steps caps of the finished runs of any workload: where there are some, the
    tables lead with the steady step too (analysis/render/terminal.py, sections/framework.py)."""
    return sorted({c for w in runs["workload"].unique() for c in _capped(runs, w)})


def _capped(runs: pd.DataFrame, workload: str) -> list[int]:
    ok = runs[(runs["workload"] == workload) & (runs["status"] == "ok")]
    caps = pd.to_numeric(ok.get("max_steps", pd.Series(dtype=float)), errors="coerce").dropna()
    return sorted({int(c) for c in caps})


def verdicts(
    runs: pd.DataFrame,
    metric: str = "train_time",
    width: float = stats.UNSTABLE_REL_WIDTH,
    reference: str | None = None,
    design: Design | None = None,
) -> list[Verdict]:
    """One verdict per workload x machine x device/cores x other backend, for the default
    settings of each (`reference`: the backend the others are compared with; None: the
    default of analysis/load/backends.py; `design`: the margin, as effects.framework's)."""
    ok = runs[runs["status"] == "ok"]
    if ok.empty:
        return []
    train_cfg = summary.configs(runs, "train_time", width)
    chosen = backends.choose_reference(runs["backend"], reference)
    fe = effects.framework(train_cfg, width, chosen or "", design)
    if fe.empty:
        return []
    fe = fe[fe["headline"]]
    out = []
    for _, row in fe.iterrows():
        workload = str(row["workload"])
        caps = _capped(runs, workload)
        lead_steady = bool(caps) or metric == "steady_step"
        train = _phrase(row, "ratio", "training time", design)
        steady = _phrase(row, "steady_step_ratio", "steady-state step time", design)
        why_metric = (
            f"capped runs (max_steps={','.join(map(str, caps))}): the steady-state step time "
            "leads, a capped run's training time is mostly start-up"
            if caps
            else ("chosen with --metric" if lead_steady else "the 2017 figure leads")
        )
        where = "gpu" if row["device"] == "cuda" else f"cpu{row['cpus']}"
        head, beside = (steady, train) if lead_steady else (train, steady)
        line = f"{workload} {where}: {head}; beside it: {beside} [{why_metric}]"
        disagreement = None
        r, s = row["ratio"], row["steady_step_ratio"]
        if not (math.isnan(r) or math.isnan(s)) and (r < 1) != (s < 1):
            slow = _faster(row, s)[0]  # faster per steady step, yet slower in training time
            parts = {
                row[side]: _budget(train_cfg, row[f"{side}_config"], workload)
                for side in ("reference", "other")
            }
            disagreement = (
                f"{workload} {where}: training time and steady state disagree: "
                f"{explain(slow, parts, _names(row))}"
            )
        out.append(
            Verdict(
                workload=workload,
                machine=str(row["machine"]),
                where=where,
                metric="steady-state step time" if lead_steady else "training time",
                line=line,
                disagreement=disagreement,
            )
        )
    return out


def lines(
    runs: pd.DataFrame,
    metric: str = "train_time",
    width: float = stats.UNSTABLE_REL_WIDTH,
    reference: str | None = None,
    design: Design | None = None,
) -> list[str]:
    """The verdict for the terminal: a title, then one line per workload (and its explanation)."""
    found = verdicts(runs, metric, width, reference, design)
    if not found:
        return []
    out = ["verdict (default settings of each backend):"]
    for v in found:
        out.append(f"  {v.line}")
        if v.disagreement:
            out.append(f"  ! {v.disagreement}")
    return [*out, ""]
