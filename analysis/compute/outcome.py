"""The outcome a ratio's interval allows, at the decision engine's margin.

A deciding sweep's decision (twinbench/sequential.py) has four outcomes: one side faster beyond the
margin, the other side faster beyond it, equivalent within it, or undecided. The analysis' tables
and verdict lines read their intervals the same way (`classify`, the margin and alpha of
conf/decision/default.yaml), so that a report never calls a side faster where the decision over
the same pairs would say undecided: an interval that excludes 1 but reaches inside the margin
says which side is ahead and by how much, and stays undecided.
"""

from __future__ import annotations

import math
from functools import lru_cache

from twinbench import sequential

NONE = "no interval"
A_FASTER, B_FASTER, EQUIVALENT, UNDECIDED = sequential.OUTCOMES


@lru_cache(maxsize=1)
def design() -> sequential.Design:
    """The decision design of conf/decision/default.yaml (read once per process)."""
    return sequential.load_design()


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
