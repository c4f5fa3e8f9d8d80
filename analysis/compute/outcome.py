"""The outcome a ratio's interval allows, at the decision engine's margin.

A deciding sweep's decision (twinbench/sequential.py) has four outcomes: one side faster beyond the
margin, the other side faster beyond it, equivalent within it, or undecided. The analysis' tables
and verdict lines read their intervals the same way (`classify`, at the margin and alpha the
inputs' deciding sweeps used, else conf/decision/default.yaml's), so that a report never calls a
side faster where the decision over the same pairs would say undecided: an interval that excludes
1 but reaches inside the margin says which side is ahead and by how much, and stays undecided.
"""

from __future__ import annotations

import math
from functools import lru_cache
from pathlib import Path

from analysis.load import decision_files
from twinbench import sequential

NONE = "no interval"
A_FASTER, B_FASTER, EQUIVALENT, UNDECIDED = sequential.OUTCOMES


@lru_cache(maxsize=1)
def design() -> sequential.Design:
    """The decision design of conf/decision/default.yaml (read once per process)."""
    return sequential.load_design()


def design_of(inputs: list[Path]) -> sequential.Design:
    """The design the analysis reads its intervals under: the one the inputs' deciding sweeps
    were decided under (`hydra.sweeper.decision.margin=0.1` makes the tables read +-10% too),
    where every decisions file among them agrees on margin and alpha; else conf's."""
    found = {(d.get("margin"), d.get("alpha")) for d in decision_files.designs(inputs)}
    if len(found) != 1:
        return design()
    margin, alpha = found.pop()
    try:
        return sequential.load_design(margin=float(margin), alpha=float(alpha))
    except (TypeError, ValueError):  # an edited file: conf's design, as where none agree
        return design()


def of_ratio(low: float, high: float, d: sequential.Design | None = None) -> str:
    """The outcome the interval [low, high] of a ratio A / B allows: A_FASTER (the whole interval
    below 1 / (1 + margin)), B_FASTER (above 1 + margin), EQUIVALENT (inside both), UNDECIDED, or
    NONE where there is no interval."""
    if math.isnan(low) or math.isnan(high) or low <= 0:
        return NONE
    return sequential.classify(math.log(low), math.log(high), d or design())


def margin_words(d: sequential.Design | None = None) -> str:
    """'+-5%': the margin as the tables print it."""
    return f"+-{(d or design()).margin:.0%}"


def undecided_detail(
    low: float, high: float, a: str, b: str, d: sequential.Design | None = None
) -> str:
    """Why an interval [low, high] of A / B decides nothing: 'interval includes 1', or, where it
    excludes 1 but crosses the margin, which side it puts ahead and by how much ('a faster by 2%
    to 8%: the interval crosses the +-5% margin'; the ends as the slower side's time over the
    faster side's, minus one)."""
    if low <= 1 <= high:
        return "interval includes 1"
    side, near, far = (a, 1 / high, 1 / low) if high < 1 else (b, low, high)
    return (
        f"{side} faster by {near - 1:.0%} to {far - 1:.0%}: "
        f"the interval crosses the {margin_words(d)} margin"
    )


def table_verdict(
    ratio: float,
    lo: float,
    hi: float,
    width: float,
    a: str,
    b: str,
    design: sequential.Design | None,
) -> str:
    """A table's verdict column (analysis/compute/effects.py): a side is called faster only where
    the whole interval [lo, hi] of the ratio a / b lies beyond the margin, and the two equivalent
    where it lies inside it; any other interval leaves it undecided, saying why. A decided side
    whose interval is wider than `width` of the ratio is marked unstable."""
    if math.isnan(ratio):
        return "no successful runs"
    found = of_ratio(lo, hi, design)
    # Only an interval decides: without one the outcome is undecided (the point ratio is in
    # its own column)
    if found == NONE:
        return "undecided (single runs: no interval)"
    if found == EQUIVALENT:
        return f"equivalent within {margin_words(design)}"
    if found == UNDECIDED:
        return f"undecided ({undecided_detail(lo, hi, a, b, design)})"
    side = f"{a} faster" if found == A_FASTER else f"{b} faster"
    if (hi - lo) / ratio > width:
        return f"{side} (unstable: wide interval)"
    return side
