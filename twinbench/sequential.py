"""Sequential paired decisions: A against B, one interleaved pair at a time, three outcomes.

Each pair gives x = log(time_A / time_B). After every pair a 1 - alpha confidence SEQUENCE on
the mean of x is updated: an interval that holds the true mean at every pair count at once, so
looking after every pair and stopping at the first clear answer keeps the error rate (a fixed-n
interval re-checked after each pair would not: its misses add up over the looks).

The sequence is Lai's (1976) t confidence sequence, exact for a normal mean with unknown
variance (Wang and Ramdas, "Anytime-valid t-tests and confidence sequences for Gaussian means
with unknown variance", Sequential Analysis 2024). For m, the scale-invariant mixture
(Gaussian prior of precision c on (mean - m) / sd, Haar prior on sd)

    M_n(m) = sqrt(c / (n + c)) * (1 - T_m^2 / ((n + c) S_m))^(-n/2),
    T_m = sum(x - m),  S_m = sum((x - m)^2),

starts at 1 and is a martingale under mean m, so by Ville's inequality it ever reaches 1/alpha
with chance at most alpha. {m : M_n(m) < 1/alpha} is, with K = (n + c)(1 - (alpha sqrt(c/(n +
c)))^(2/n)) and SS the sum of squares about the mean,

    mean_n +- sqrt(K SS / (n (n - K)))     (the whole line while n <= K).

A pair's log ratio under A/A is symmetric (the two halves are exchangeable), the case where the
t sequence keeps its level beyond the normal; tests/test_sequential.py simulates this machine's
noise (+-10%, two modes) and shows the false-decision rate at or below alpha. A plug-in
(asymptotic) sequence was tried first and missed 7-16% of the time at 3-60 pairs: rejected.

Outcomes, with d = log(1 + margin):
    a_faster     the whole interval below -d: A faster by more than the margin
    b_faster     the whole interval above +d: B faster by more than the margin
    equivalent   the whole interval inside (-d, +d): both one-sided tests (TOST) reject
    undecided    a budget (pairs or seconds) ran out first; it states the margin it could resolve
Any wrong decision needs the interval to miss the true mean, so all three share the one alpha.

numpy only, no project imports but the conf path and the sequence's arithmetic
(twinbench/confidence.py): a leaf that the launch side and the analysis both use.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

import numpy as np
import yaml

from twinbench.confidence import PROJECTION_CAP, half_widths, projected_pairs
from twinbench.paths import CONF_DIR

CONFIG = CONF_DIR / "decision" / "default.yaml"
OUTCOMES = ("a_faster", "b_faster", "equivalent", "undecided")
MEASURES = ("wall", "cpu")
FAILED_IN_A_ROW = "failed_in_a_row"  # a series' stop: Design.max_failed_in_a_row pairs failed
# How a pair's two halves share the machine. The fresh-process pairings measure two fresh runs
# per pair (start-up and import included in what each run records); "resident" keeps a pair of
# workers for `resident_blocks` blocks each and makes that worker pair the unit.
FRESH_PAIRINGS = ("turns", "sequential")
PAIRINGS = (*FRESH_PAIRINGS, "resident")
# Each design in words, and what its decision cannot see: every verdict names both (the first
# screen, decisions.json, the report).
DESIGN_NAMES = {
    "turns": "fresh-process pairs in turns",
    "sequential": "fresh-process pairs one after the other",
    "resident": "resident worker pairs in turns",
}
_FRESH_LEAVES_OUT = (
    "start-up and warm-up from the ratio (steady steps decide), but every pair starts fresh "
    "processes and each run's record holds its start-up and import"
)
LEAVES_OUT = {
    "turns": _FRESH_LEAVES_OUT,
    "sequential": _FRESH_LEAVES_OUT,
    "resident": "start-up, import and warm-up (each worker pays them once, outside the blocks "
    "compared, and the pair's two workers start up at once, so each record's start-up includes "
    "its partner's): use a fresh-process pairing to compare those",
}


@dataclass(frozen=True)
class Design:
    """How a sequence decides and when it gives up (conf/decision/default.yaml)."""

    margin: float = 0.05
    alpha: float = 0.05
    measure: str = "wall"
    min_pairs: int = 2
    max_pairs: int = 40
    max_seconds: float | None = 300.0
    prior_precision: float = 1.0
    # Seconds for all the series of one sweep together (None: none): a series that decides
    # early leaves its time to the ones still undecided (twinbench/launch/decide.py).
    total_seconds: float | None = None
    # How a pair's two runs share the machine (twinbench/launch/turns.py): "turns" runs both at
    # once, taking turns of `turn_ticks` timed ticks with `turn_gap_s` between turns;
    # "sequential" runs one fresh worker after the other.
    pairing: str = "turns"
    turn_ticks: int = 20
    turn_gap_s: float = 0.05
    # pairing "resident" (twinbench/launch/resident.py): a worker pair lives for
    # `resident_blocks` blocks of turn_ticks ticks a side, after one warm-up turn of
    # `warmup_ticks` each, then both exit; the worker pair is the unit the sequence counts.
    resident_blocks: int = 20
    warmup_ticks: int = 10
    # A series stops after this many pairs in a row with a failed or missing half: a config
    # refused at once or a worker that dies every time would otherwise spend every pair.
    max_failed_in_a_row: int = 3
    # An undecided verdict's "a budget of about N pairs would likely decide it"
    # (confidence.projected_pairs): this quantile of the counts over this many means drawn
    # within the observed mean's uncertainty.
    projection_quantile: float = 0.75
    projection_draws: int = 200
    # A speed table's rounds under a budget run the rows whose projection at this quantile
    # fits in the time left (benchmarks/rounds.py).
    reach_quantile: float = 0.5

    def __post_init__(self) -> None:
        # Checked here, so a bad conf fails before the first pair, not after minutes of them.
        problems = []
        if not 0 < self.margin < 1:
            problems.append(f"margin must be a fraction between 0 and 1, got {self.margin!r}")
        if not 0 < self.alpha < 0.5:
            problems.append(f"alpha must be between 0 and 0.5, got {self.alpha!r}")
        if self.measure not in MEASURES:
            problems.append(f"measure must be one of {', '.join(MEASURES)}, got {self.measure!r}")
        if not 2 <= self.min_pairs <= self.max_pairs:
            problems.append(
                f"need 2 <= min_pairs <= max_pairs, got {self.min_pairs} and {self.max_pairs}"
            )
        if self.max_seconds is not None and self.max_seconds <= 0:
            problems.append(f"max_seconds must be positive or null, got {self.max_seconds!r}")
        if self.total_seconds is not None and self.total_seconds <= 0:
            problems.append(f"total_seconds must be positive or null, got {self.total_seconds!r}")
        if not self.prior_precision > 0:
            problems.append(f"prior_precision must be positive, got {self.prior_precision!r}")
        if self.pairing not in PAIRINGS:
            problems.append(f"pairing must be one of {', '.join(PAIRINGS)}, got {self.pairing!r}")
        if isinstance(self.turn_ticks, bool) or not (
            isinstance(self.turn_ticks, int) and self.turn_ticks >= 1
        ):
            problems.append(f"turn_ticks must be a whole number >= 1, got {self.turn_ticks!r}")
        for name in ("resident_blocks", "warmup_ticks", "max_failed_in_a_row"):
            value = getattr(self, name)
            if isinstance(value, bool) or not (isinstance(value, int) and value >= 1):
                problems.append(f"{name} must be a whole number >= 1, got {value!r}")
        for name in ("projection_quantile", "reach_quantile"):
            if not 0 < getattr(self, name) < 1:
                problems.append(f"{name} must be in (0, 1), got {getattr(self, name)!r}")
        if isinstance(self.projection_draws, bool) or not (
            isinstance(self.projection_draws, int) and self.projection_draws >= 1
        ):
            problems.append(
                f"projection_draws must be a whole number >= 1, got {self.projection_draws!r}"
            )
        if not 0 <= self.turn_gap_s <= 10:
            problems.append(f"turn_gap_s must be between 0 and 10 seconds, got {self.turn_gap_s!r}")
        if problems:
            raise ValueError("decision design: " + "; ".join(problems))

    def described(self) -> dict[str, Any]:
        """The design that decides, for decisions.json and the screen: its name, its unit and
        what it cannot see."""
        unit = (
            f"a worker pair, the mean log ratio of its {self.resident_blocks} block rounds "
            "(its blocks share two processes' states: one value, then fresh workers)"
            if self.pairing == "resident"
            else "a pair of fresh runs: the ratio of their figures"
        )
        return {
            "name": DESIGN_NAMES[self.pairing],
            "unit": unit,
            "leaves_out": LEAVES_OUT[self.pairing],
        }

    @property
    def log_margin(self) -> float:
        return math.log1p(self.margin)

    @property
    def first_interval_pairs(self) -> int:
        """The fewest pairs after which the confidence sequence is finite (before them it is the
        whole line, whatever the pairs say): the least a budget must give a row."""
        n = np.arange(1, self.max_pairs + 1, dtype=float)
        finite = np.isfinite(half_widths(n, np.ones_like(n), self.alpha, self.prior_precision))
        finite &= n >= self.min_pairs
        return int(n[finite][0]) if finite.any() else self.max_pairs + 1


def load_design(path: Path = CONFIG, **overrides: Any) -> Design:
    """The design in conf/ (or `path`), with `overrides` (e.g. margin=0.1, max_seconds=None)
    applied on top."""
    data = yaml.safe_load(Path(path).read_text()) or {}
    data.update(overrides)
    unknown = set(data) - set(Design.__dataclass_fields__)
    if unknown:
        raise ValueError(f"{path}: unknown decision keys {sorted(unknown)}")
    return Design(**data)


def running_bounds(x: np.ndarray, d: Design) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper bounds after each pair, for one sequence (1-D) or many (rows of 2-D).

    Vectorised over rows so the simulation in the tests runs the very code a comparison runs.
    Before `min_pairs` the bounds are infinite: nothing can be decided yet.
    """
    x = np.atleast_2d(np.asarray(x, float))
    n = np.arange(1, x.shape[1] + 1, dtype=float)
    mean = np.cumsum(x, axis=1) / n
    ss = np.maximum(np.cumsum(x * x, axis=1) - n * mean * mean, 0.0)  # rounding: never < 0
    h = half_widths(n, ss, d.alpha, d.prior_precision) * np.ones_like(mean)
    h[:, n < d.min_pairs] = np.inf
    return mean - h, mean + h


def classify(low: float, high: float, d: Design) -> str:
    """The outcome an interval [low, high] of the mean log ratio allows (undecided: none)."""
    m = d.log_margin
    if high < -m:
        return "a_faster"
    if low > m:
        return "b_faster"
    if -m < low and high < m:
        return "equivalent"
    return "undecided"


def first_decisions(x: np.ndarray, d: Design) -> tuple[np.ndarray, np.ndarray]:
    """Per row of x: the outcome index (into OUTCOMES) at its first decided pair, and that pair
    count (0 where none decided within the row). For the simulation; `decide_sequence` is the
    one-sequence form."""
    low, high = running_bounds(x, d)
    m = d.log_margin
    codes = np.full(low.shape, 3)
    codes[(-m < low) & (high < m)] = 2
    codes[low > m] = 1
    codes[high < -m] = 0
    decided = codes < 3
    any_ = decided.any(axis=1)
    first = np.argmax(decided, axis=1)
    outcome = np.where(any_, codes[np.arange(len(codes)), first], 3)
    return outcome, np.where(any_, first + 1, 0)


@dataclass(frozen=True)
class Decision:
    """Where a sequence ended: its outcome, interval (as time ratios A/B), pairs and why."""

    outcome: str
    stopped_by: str  # decided | max_pairs | max_seconds | total_seconds | failed_in_a_row
    measure: str  # the measure that decided (wall or cpu)
    pairs: int
    ratio: float  # exp(mean log ratio): the geometric mean of the pairs' ratios A/B
    ratio_low: float
    ratio_high: float
    margin: float
    alpha: float
    resolvable_margin: float | None  # the smallest margin this interval would decide (equiv.)
    elapsed_s: float | None = None
    # Undecided: the budget in pairs that would likely decide it (confidence.projected_pairs)
    pairs_to_decide: int | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def line(self, a: str = "A", b: str = "B") -> str:
        """One line: the verdict, its interval, pairs and what ended the sequence."""
        return f"{a}/{b} {self.measure} time {self.interval()}: {self.verdict(a, b)}"

    def verdict(self, a: str = "A", b: str = "B") -> str:
        """The outcome in words; an undecided one says the margin its pairs could resolve."""
        verdicts = {
            "a_faster": f"{a} faster than {b} by more than {self.margin:.0%}",
            "b_faster": f"{b} faster than {a} by more than {self.margin:.0%}",
            "equivalent": f"{a} and {b} equivalent within +-{self.margin:.0%}",
        }
        if self.outcome in verdicts:
            return verdicts[self.outcome]
        resolvable = (
            "no margin"
            if self.resolvable_margin is None
            else f"a margin of +-{self.resolvable_margin:.1%}"
        )
        ended = (
            "stopped by pairs that failed in a row (max_failed_in_a_row)"
            if self.stopped_by == FAILED_IN_A_ROW
            else f"at budget ({self.stopped_by})"
        )
        text = f"undecided {ended}; these pairs resolve {resolvable}"
        shown = self.shown_difference()
        if shown is not None:
            winner, at_least = shown
            name = a if winner == "a" else b
            text += f", and show {name} faster by at least {at_least:.1%} (less than the margin)"
        return text + "; " + self.what_would_decide()

    def what_would_decide(self) -> str:
        """For an undecided sequence, the budget in pairs that would likely decide it: a
        projection from these pairs over their mean's uncertainty, not a promise."""
        if self.stopped_by == FAILED_IN_A_ROW:
            return "what failed comes first: each failed run's record holds its error"
        if self.pairs_to_decide is None and self.pairs < 2:
            return "too few pairs to project what would decide it"
        if self.pairs_to_decide is None:
            return (
                f"at this ratio and spread no budget up to {PROJECTION_CAP} pairs would likely "
                f"decide +-{self.margin:.0%}: within its uncertainty the ratio reaches the "
                "margin's edge"
            )
        return (
            f"at this ratio and spread a budget of about {self.pairs_to_decide} pairs in all "
            f"would likely decide +-{self.margin:.0%} (a projection over the ratio's own "
            "uncertainty; the pairs stop as soon as they decide)"
        )

    def shown_difference(self) -> tuple[str, float] | None:
        """Where an undecided interval excludes equality: which side it shows faster ("a" or
        "b") and by at least how much, or None. The confidence sequence covers at whatever pair
        it is read, so its end that excludes 1 is as valid as the margins it did not reach."""
        if not 0 < self.ratio_low <= self.ratio_high < math.inf:
            return None
        if self.ratio_low > 1:
            return "b", self.ratio_low - 1
        if self.ratio_high < 1:
            return "a", 1 / self.ratio_high - 1
        return None

    def interval(self) -> str:
        """The ratio and its interval, or why there is no interval yet."""
        if not 0 < self.ratio_low <= self.ratio_high < math.inf:
            return f"{self.ratio:.3f} (no interval from {self.pairs} pair(s): too few)"
        return (
            f"{self.ratio:.3f} [{self.ratio_low:.3f}, {self.ratio_high:.3f}] "
            f"({1 - self.alpha:.0%} confidence sequence, {self.pairs} pairs)"
        )


def decide_sequence(
    ratios: Sequence[float],
    d: Design,
    stopped_by: str | None = None,
    elapsed_s: float | None = None,
) -> Decision:
    """The decision after the pairs' time ratios A/B seen so far (all of them, in order).

    The outcome is the one at the FIRST pair where the interval decided: a sequence stops there,
    and later pairs (if a caller measured them anyway) do not overturn it.
    """
    x = np.log(np.asarray(ratios, float))
    if x.size == 0 or not np.all(np.isfinite(x)):
        raise ValueError("need at least one positive, finite pair ratio")
    outcome_code, at = first_decisions(x, d)
    low, high = running_bounds(x, d)
    n = int(at[0]) if at[0] else x.size
    lo, hi, centre = float(low[0, n - 1]), float(high[0, n - 1]), float(x[:n].mean())
    outcome = OUTCOMES[int(outcome_code[0])]
    reach = max(abs(lo), abs(hi))
    projected = None
    if outcome == "undecided" and n > 1:
        projected = projected_pairs(x[:n], d)
    return Decision(
        outcome=outcome,
        stopped_by="decided" if outcome != "undecided" else (stopped_by or "max_pairs"),
        measure=d.measure,
        pairs=n,
        ratio=math.exp(centre),
        ratio_low=math.exp(lo),
        ratio_high=math.exp(hi),
        margin=d.margin,
        alpha=d.alpha,
        resolvable_margin=math.expm1(reach) if math.isfinite(reach) else None,
        elapsed_s=elapsed_s,
        pairs_to_decide=projected,
    )


def run_sequence(
    next_pair: Callable[[int], float],
    d: Design,
    now: Callable[[], float] = time.monotonic,
    say: Callable[[str], None] = print,
) -> tuple[list[float], Decision]:
    """Ask `next_pair(i)` for pair i's time ratio A/B until decided or out of budget.

    The seconds budget is checked after each pair (a pair is never cut in half), so a sequence
    may run past `max_seconds` by at most one pair.
    """
    start, ratios = now(), []
    stopped_by = "max_pairs"
    while len(ratios) < d.max_pairs:
        ratios.append(float(next_pair(len(ratios))))
        current = decide_sequence(ratios, d)
        say(f"    pair {len(ratios)}: ratio {ratios[-1]:.3f}; {current.line()}")
        if current.outcome != "undecided":
            return ratios, decide_sequence(ratios, d, elapsed_s=now() - start)
        if d.max_seconds is not None and now() - start >= d.max_seconds:
            stopped_by = "max_seconds"
            break
    return ratios, decide_sequence(ratios, d, stopped_by, elapsed_s=now() - start)
