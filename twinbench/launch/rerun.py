"""The command that would decide an undecided core count of a deciding sweep: the last line
under its verdict on the first screen (twinbench/launch/screen.py), built from the decision's
projection of the pairs that would likely decide it (twinbench/confidence.py)."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from twinbench.sequential import FAILED_IN_A_ROW, Decision
from twinbench.ui.progress import duration

# Keys a rerun of one undecided core count sets itself (rerun_line): the rest of the user's
# command line is kept as given.
DECISION_KEY = "hydra.sweeper.decision."
RERUN_SETS = ("cpus", "repeats", *(DECISION_KEY + k for k in ("total_seconds", "max_pairs")))
RERUN_PAIRS_STEP = 10  # repeats rounded up to a multiple of this


def rerun_line(
    series: dict[str, Any],
    decision: Decision,
    design: dict[str, Any],
    given: Sequence[str],
    all_cores: int | None,
) -> str | None:
    """For an undecided core count whose decision projects the pairs that would decide it: the
    command that gives one sweep of that core count alone the pairs and seconds (at this sweep's
    seconds a pair) to reach them: the pairs (`repeats`, and the design's max_pairs where it is
    fewer) and the seconds (the sweep's total, and no per-count cap below it), `++` so that each
    is set whether or not the experiment sets it. `given`: the user's overrides; None where
    nothing projects. Every core reads as its number (`cpus=2`), as the screen never says
    `null`."""
    seconds = series.get("seconds")
    if decision.stopped_by == FAILED_IN_A_ROW:
        return None  # more pairs would fail the same way: the failure comes first
    if decision.pairs_to_decide is None or not seconds or decision.pairs < 1:
        return None
    pair_s = seconds / decision.pairs
    need = decision.pairs_to_decide
    budget_s = math.ceil(need * pair_s / 60) * 60
    repeats = math.ceil(need / RERUN_PAIRS_STEP) * RERUN_PAIRS_STEP
    own = dict(t.split("=", 1) for t in series["series"].split() if "=" in t)  # cpus=1, ...
    if all_cores and own.get("cpus") in ("null", "None", ""):
        own["cpus"] = str(all_cores)
    new = [*(f"{k}={v}" for k, v in own.items()), f"repeats={repeats}"]
    if (design.get("max_pairs") or 0) < repeats:
        new.append(f"++{DECISION_KEY}max_pairs={repeats}")
    if design.get("max_seconds") is not None and design["max_seconds"] < budget_s:
        new.append(f"++{DECISION_KEY}max_seconds=null")
    new.append(f"++{DECISION_KEY}total_seconds={budget_s}")
    sets = {*RERUN_SETS, *own, DECISION_KEY + "max_seconds"}
    kept = [o for o in given if o.split("=", 1)[0].lstrip("+~") not in sets]
    return (
        f"to decide it alone (about {need} pairs at {pair_s:.0f} s, {duration(budget_s)}): "
        f"python run.py {' '.join([*kept, *new])}"
    )
