"""Release history: per workload, backend and budget, the steady step on each stack (conf/stack/),
releases in order, with a verdict between each release and the one before it, and the kernels
the run's probe saw (record `kernels.summary`, measure.kernel_probe=true), so a change of kernel
library or code path between releases is named, not guessed.

A release is named by the backend's packages whose versions differ between the series' stacks,
as the worker read them back (record `stack.versions`; `keras 3.12.0`), and releases are ordered
by those versions.

A verdict between neighbours is the decision engine's classification (twinbench/sequential.py
`classify`, its margin and alpha from conf/decision/default.yaml) applied to the Welch interval
of the ratio of their runs' steady steps (twinbench.stats.ratio_ci): later release faster,
slower, equivalent within the margin, or undecided where the interval allows more than one of
these (one run a side decides nothing).
"""

from __future__ import annotations

import re
from typing import Any

import pandas as pd

from analysis.compute import outcome
from twinbench import sequential, stats

STEADY = "steady_step_s"
SERIES = ["workload", "backend", "cpus", "precision"]
# what a verdict of the engine reads as, the later release against the earlier
WORDS = {
    "a_faster": "faster",
    "b_faster": "slower",
    "equivalent": "equivalent",
    "undecided": "undecided",
}


def release_order(version: Any) -> tuple:
    """A sort key for release numbers ("3.12.0" before "3.15.1"; unknown last)."""
    if not isinstance(version, str):
        return (1, ())
    return (0, tuple(int(p) if p.isdigit() else 0 for p in re.split(r"[.+-]", version)))


def _one(values: pd.Series) -> Any:
    present = values.dropna()
    if present.empty:
        return None
    found = present.astype(str).unique()
    return found[0] if len(found) == 1 else " | ".join(sorted(found))


def _versions(group: pd.DataFrame) -> dict[str, str]:
    """package -> version, as the runs' stack blocks read them back (`stack_versions`)."""
    text = _one(group.get("stack_versions", pd.Series(dtype=object)))
    if not isinstance(text, str) or " | " in text:  # none, or the runs disagree: unnamed
        return {}
    return dict(part.split("==", 1) for part in text.split(", ") if "==" in part)


def _shared(all_versions: Any) -> set[str]:
    """Packages at one version on every stack of a series: they do not name a release."""
    listed = list(all_versions)
    names = {name for versions in listed for name in versions}
    return {name for name in names if len({v.get(name) for v in listed}) == 1}


def history(runs: pd.DataFrame, design: sequential.Design | None = None) -> pd.DataFrame:
    """One row per series and stack, releases in order; empty where no series ran on more
    than one stack."""
    need = [*SERIES, "stack", STEADY, "status"]
    if any(c not in runs for c in need):
        return pd.DataFrame()
    design = design or sequential.load_design()
    ok = runs[runs["status"] == "ok"].dropna(subset=[STEADY])
    rows: list[dict[str, Any]] = []
    for key, series in ok.groupby(SERIES, dropna=False):
        if series["stack"].nunique() < 2:
            continue
        found = {str(stack): (_versions(group), group) for stack, group in series.groupby("stack")}
        moved = sorted(
            {p for v, _ in found.values() for p in v} - _shared(v for v, _ in found.values())
        )
        per_stack = []
        for stack, (versions, group) in found.items():
            order = tuple(release_order(versions.get(p)) for p in moved)
            label = ", ".join(f"{p} {versions[p]}" for p in moved if p in versions)
            version = label or _one(group.get("framework_version", pd.Series(dtype=object)))
            per_stack.append((order, stack, version, group))
        per_stack.sort(key=lambda item: (item[0], item[1]))
        previous, kernels_before = None, None
        for _, stack, version, group in per_stack:
            kernels = _one(group.get("kernels_summary", pd.Series(dtype=object)))
            steps = group[STEADY].astype(float).to_numpy()
            summary = stats.summarize(steps)
            row = dict(zip(SERIES, key, strict=True))
            row.update(
                stack=stack,
                release=version,
                pins=_one(group.get("stack_pins", pd.Series(dtype=object))),
                n=len(steps),
                steady_step_s=summary.median,
                steady_ci_low_s=summary.ci_low,
                steady_ci_high_s=summary.ci_high,
                kernels=kernels,
                # only where both releases were probed: an unprobed one says nothing
                kernels_changed=(
                    None
                    if previous is None or kernels is None or kernels_before is None
                    else kernels != kernels_before
                ),
                **_against(previous, steps, design),
            )
            rows.append(row)
            previous, kernels_before = (stack, steps), kernels
    return pd.DataFrame(rows)


def _against(previous: tuple[str, Any] | None, steps: Any, design: sequential.Design) -> dict:
    """This release's steady step over the previous release's, its interval and verdict."""
    if previous is None:
        return {
            "versus": None,
            "ratio": None,
            "ratio_low": None,
            "ratio_high": None,
            "verdict": None,
        }
    name, before = previous
    ratio, low, high, verdict = neighbour_verdict(steps, before, design)
    return {
        "versus": name,
        "ratio": ratio,
        "ratio_low": low,
        "ratio_high": high,
        "verdict": verdict,
    }


def neighbour_verdict(
    later: Any, earlier: Any, design: sequential.Design
) -> tuple[float, float | None, float | None, str]:
    """The later release's steady steps over the earlier's: ratio, interval and the verdict's
    word. Its false-decision rate on A/A splits of real runs (the same software on both
    sides) is measured by `python -m benchmarks.diagnostics.ratio_coverage verdicts`."""
    ratio, low, high = stats.ratio_ci(later, earlier)
    if low is None or high is None:
        return ratio, low, high, WORDS["undecided"]
    return ratio, low, high, WORDS.get(outcome.of_ratio(low, high, design), WORDS["undecided"])
