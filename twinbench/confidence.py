"""Lai's t confidence sequence, its widths and what it projects (twinbench/sequential.py says
why this sequence and how a comparison decides with it).

numpy only and nothing of the project, so it sits in the bottom layer beside twinbench.paths
(tests/test_layers.py): twinbench.sequential, a leaf, builds on it and re-exports half_widths.
"""

from __future__ import annotations

import math
from typing import Any, Protocol

import numpy as np


class Rule(Protocol):
    """What these functions read of a decision design (twinbench.sequential.Design)."""

    @property
    def alpha(self) -> float: ...
    @property
    def prior_precision(self) -> float: ...
    @property
    def min_pairs(self) -> int: ...
    @property
    def log_margin(self) -> float: ...
    @property
    def projection_quantile(self) -> float: ...
    @property
    def projection_draws(self) -> int: ...


def half_widths(n: np.ndarray, ss: np.ndarray, alpha: float, c: float) -> np.ndarray:
    """Half-width of Lai's t confidence sequence after n values whose squares about their mean
    sum to ss (infinite while the sequence is still the whole line)."""
    k = (n + c) * (1.0 - (alpha * np.sqrt(c / (n + c))) ** (2.0 / n))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > k, np.sqrt(k * ss / (n * (n - k))), np.inf)


PROJECTION_CAP = 1000  # the most pairs what_would_decide() looks ahead to


def pairs_to_decide(mean: Any, sd: float, d: Rule, cap: int = PROJECTION_CAP) -> Any:
    """The fewest pairs (at least min_pairs) whose interval, at this mean log ratio and spread
    of log ratios, classify() decides; None where none up to `cap` does. Given an array of
    means, an array of counts with inf where none decides.

    classify() decides once the half-width is below the mean's distance from the margin's edge,
    | |mean| - margin | (beyond it: a side faster; inside it: equivalent), so the count is the
    first n whose half-width, or any earlier one, is below that distance: one search per mean,
    cheap enough for every pair of a live comparison and every step of a simulation."""
    n = np.arange(max(2, d.min_pairs), cap + 1, dtype=float)
    h = half_widths(n, (n - 1) * sd * sd, d.alpha, d.prior_precision)
    lowest = np.minimum.accumulate(h)  # non-increasing: the first n below a distance is found
    distance = np.abs(np.abs(np.atleast_1d(np.asarray(mean, float))) - d.log_margin)
    first = np.searchsorted(-lowest, -distance, side="right")  # first lowest < distance
    counts = np.where(first < n.size, n[np.minimum(first, n.size - 1)], np.inf)
    if np.ndim(mean):
        return counts
    return int(counts[0]) if np.isfinite(counts[0]) else None


def projected_pairs(x: np.ndarray, d: Rule) -> int | None:
    """The pairs in all that would decide the sequence x (log ratios), allowing for its mean's
    own uncertainty: the `projection_quantile` of pairs_to_decide over `projection_draws` means
    drawn around the observed one with its standard error (seeded: the same pairs, the same
    line). None where that quantile is no count up to the cap. Read at the observed mean alone,
    the projection was optimistic on held-out pairs near the margin's edge (docs/usage/
    decisions.md)."""
    sd = float(x.std(ddof=1))
    draws = np.random.default_rng(0).normal(x.mean(), sd / math.sqrt(x.size), d.projection_draws)
    # "higher": an actual count, never an interpolation between a count and inf
    count = float(
        np.quantile(pairs_to_decide(draws, sd, d), d.projection_quantile, method="higher")
    )
    return int(count) if math.isfinite(count) else None
