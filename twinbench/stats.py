"""Statistics for timings: medians with distribution-free confidence intervals, ratios, drift.

numpy only (analysis/ uses this too). Timings are skewed and heavy-tailed (a noisy
neighbour makes some steps slow, none fast), so the centre is the median and its interval comes
from order statistics: exact, assumption-free coverage, and the same answer every time.
"""

from __future__ import annotations

import functools
from collections.abc import Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np

CONFIDENCE = 0.95
UNSTABLE_REL_WIDTH = 0.10  # an interval wider than 10% of the median is flagged, not hidden
DRIFT_THRESHOLD = 0.10  # last third of the steps 10% slower (or faster) than the first third
# A run's steady-step interval is taken over this many consecutive batches' medians
# (summarize_series; measure.step_batches sets it): 20 reach 95% at ranks 5 and 14.
STEP_BATCHES = 20


@dataclass(frozen=True)
class Summary:
    n: int
    median: float
    mean: float
    stdev: float
    min: float
    max: float
    ci_low: float
    ci_high: float
    confidence: float  # the coverage the interval actually achieves (below target for n < 6)
    rel_ci_width: float
    unstable: bool
    # summarize_series: the consecutive batches whose medians the interval is taken over
    batches: int | None = None

    def as_dict(self) -> dict[str, float | int | bool]:
        return {k: v for k, v in asdict(self).items() if not (k == "batches" and v is None)}


def median_ci_ranks(n: int, confidence: float = CONFIDENCE) -> tuple[int, int, float]:
    """0-based ranks (lo, hi) of the order-statistic interval for the median, and its coverage.

    [x_(k), x_(n-1-k)] misses the median when at most k of the n values fall below it, so it
    covers with 1 - 2 * P(Binomial(n, 1/2) <= k); k is the largest whose coverage reaches
    `confidence`. Where none does (n < 6 at 95%), the full range [min, max] is returned with the
    coverage it has. numpy only: scipy.stats costs every worker about 2 s of import.
    """
    if n < 2:
        return 0, max(n - 1, 0), 0.0
    i = np.arange(n)
    # log P(B = i) by the ratio of successive binomial coefficients, from P(B = 0) = 2^-n
    log_pmf = np.concatenate(([-n * np.log(2.0)], np.log((n - i[:-1]) / (i[:-1] + 1.0))))
    coverage = 1.0 - 2.0 * np.cumsum(np.exp(np.cumsum(log_pmf)))
    reach = np.flatnonzero(coverage[: (n + 1) // 2] >= confidence)
    k = int(reach[-1]) if reach.size else 0
    return k, n - 1 - k, float(coverage[k])


def summarize(
    values: Sequence[float],
    confidence: float = CONFIDENCE,
    unstable_rel_width: float = UNSTABLE_REL_WIDTH,
) -> Summary:
    x = np.sort(np.asarray(values, dtype=float))
    if x.size == 0:
        raise ValueError("no values to summarize")
    median = float(np.median(x))
    if x.size == 1:
        lo = hi = median
        achieved = 0.0
    else:
        k_lo, k_hi, achieved = median_ci_ranks(x.size, confidence)
        lo, hi = float(x[k_lo]), float(x[k_hi])
    rel = (hi - lo) / median if median else float("inf")
    return Summary(
        n=int(x.size),
        median=median,
        mean=float(x.mean()),
        stdev=float(x.std(ddof=1)) if x.size > 1 else 0.0,
        min=float(x[0]),
        max=float(x[-1]),
        ci_low=lo,
        ci_high=hi,
        confidence=achieved,
        rel_ci_width=rel,
        unstable=x.size < 2 or rel > unstable_rel_width,
    )


def summarize_series(
    values: Sequence[float],
    batches: int = STEP_BATCHES,
    confidence: float = CONFIDENCE,
    unstable_rel_width: float = UNSTABLE_REL_WIDTH,
) -> Summary:
    """summarize() of values in the order they were measured (a run's steady steps), with the
    median's interval taken over the medians of `batches` consecutive batches instead of over
    the values themselves.

    A run's steps are not independent draws: a slow stretch (a neighbour, a frequency phase,
    subnormals as training goes on) holds for hundreds of steps, so neighbouring steps are
    alike (lag-1 correlation a median 0.69 over 32 runs of six workloads, 2026-12-07). The
    order statistics of the steps then give an interval narrower than the run's own median
    moves: fitted on every other fortieth of a run, it disagreed with the fortieths it had not
    seen in 10 of 32 runs, where a valid interval would in about 5%; the batches' form in none
    (docs/findings/2026-12-07-run-intervals.md). The medians of long consecutive batches are
    close to independent, and a stretch that moves the run moves some of them, so their order
    statistics widen with it. The point stays the median of every value; the interval is
    widened to hold it where the batches' medians leave it outside."""
    x = np.asarray(values, dtype=float)
    if x.size == 0:
        raise ValueError("no values to summarize")
    k = max(1, min(int(batches), x.size))
    medians = [float(np.median(b)) for b in np.array_split(x, k)]
    every, over = summarize(x), summarize(medians, confidence)
    lo, hi = min(over.ci_low, every.median), max(over.ci_high, every.median)
    rel = (hi - lo) / every.median if every.median else float("inf")
    return replace(
        every,
        ci_low=lo,
        ci_high=hi,
        confidence=over.confidence,
        rel_ci_width=rel,
        unstable=x.size < 2 or rel > unstable_rel_width,
        batches=k,
    )


def t_quantile(p: float, dof: float, grid: int = 4001) -> float:
    """Student's t quantile for p in (0.5, 1) and dof >= 1 (a real number: Welch's), numpy only.

    With t = sqrt(dof) tan(theta), t's density becomes cos(theta)^(dof - 1) on
    (-pi/2, pi/2), up to a constant: bounded for dof >= 1, so P(0 < T < t) is a trapezoid sum
    over theta, inverted by interpolation. The grid, theta = pi/2 (3x^2 - 2x^3) with x evenly
    spaced, crowds towards 0 (where a large dof puts all the mass) and towards pi/2 (where the
    density's slope is infinite for dof below 2). Agrees with scipy.stats.t.ppf within 1e-5
    up to dof 300 (tests/test_ratio_coverage.py checks), 2e-4 at 1e5; scipy itself would cost
    every worker its import.
    """
    if not 0.5 < p < 1.0:
        raise ValueError(f"p must lie in (0.5, 1), not {p}")
    if not dof >= 1.0:
        raise ValueError(f"dof must be at least 1, not {dof}")
    x = np.linspace(0.0, 1.0, grid)
    theta = np.pi / 2 * x * x * (3.0 - 2.0 * x)
    weight = np.cos(theta) ** (dof - 1.0) * x * (1.0 - x)  # density times d(theta)/dx, /3pi
    cdf = np.concatenate(([0.0], np.cumsum(weight[1:] + weight[:-1])))
    angle = float(np.interp(2.0 * p - 1.0, cdf / cdf[-1], theta))
    return float(np.sqrt(dof) * np.tan(angle))


def ratio_ci(
    a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE
) -> tuple[float, float | None, float | None]:
    """median(a) / median(b), with a Welch t-interval on the logs of the runs' values (None
    with fewer than two values a side, or a value that is not positive).

    The interval is exp(mean log a - mean log b +- t * se), Welch's unequal-variance se and
    degrees of freedom: a run's time varies by a factor (placement, speed levels), so logs are
    where the two sides' spreads add. With two runs a side it has one to two degrees of freedom
    (t up to 12.7) and is wide: that is what two runs know. It is widened, where needed, to
    hold the point (the ratio of medians, the report's time columns' quotient), so a verdict
    read from the interval never contradicts the point. The percentile bootstrap it replaces
    held 1.0 in 61-68% of A/A comparisons at two runs a side and 85-91% at three, real splits
    and simulated alike; this interval in 94-97% (docs/findings/2026-12-01-ratio-interval-
    coverage.md).
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    ratio = float(np.median(a) / np.median(b))
    if a.size < 2 or b.size < 2 or (a <= 0).any() or (b <= 0).any():
        return ratio, None, None
    la, lb = np.log(a), np.log(b)
    centre = float(la.mean() - lb.mean())
    va, vb = la.var(ddof=1) / a.size, lb.var(ddof=1) / b.size
    se = float(np.sqrt(va + vb))
    if se == 0.0:  # every run a side alike: the ratio is known, and it is the point
        return ratio, ratio, ratio
    else:
        dof = float((va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1)))
        half = t_quantile(0.5 + confidence / 2, max(dof, 1.0)) * se
        lo, hi = float(np.exp(centre - half)), float(np.exp(centre + half))
    return ratio, min(lo, ratio), max(hi, ratio)


def drift(
    step_times: Sequence[float], threshold: float = DRIFT_THRESHOLD
) -> dict[str, float | bool]:
    """Whether steps got slower (or faster) during a run: median of the last third over the first.

    Denormal numbers, thermal throttling or a neighbour starting work all show up this way.
    """
    x = np.asarray(step_times, float)
    if x.size < 6:
        return {"ratio_last_to_first_third": 1.0, "drifting": False}
    third = x.size // 3
    ratio = float(np.median(x[-third:]) / np.median(x[:third]))
    return {"ratio_last_to_first_third": ratio, "drifting": abs(ratio - 1.0) > threshold}


def paired_ratio(a: Sequence[float], b: Sequence[float], confidence: float = CONFIDENCE) -> Summary:
    """Ratios a_i / b_i of interleaved pairs, summarised like any sample (median, exact interval).

    Pairing cancels what both halves of a pair share (a neighbour's load, the frequency of the
    minute), so the interval is of the ratio itself, not of two independent medians.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    if a.shape != b.shape:
        raise ValueError(f"paired samples differ in length: {a.size} and {b.size}")
    return summarize(a / b, confidence)


def sessions_ratio(
    ratios: Sequence[float], sessions: Sequence[str], confidence: float = CONFIDENCE
) -> Summary:
    """Paired ratios measured in several sessions (sweeps), summarised with the session as the
    unit: each session's median log ratio is one value, and the interval is a t-interval over
    those values around their mean (n: the number of sessions; median: the interval's centre).

    Pairs share a session's minutes, and a host's phase moves a whole session: on 2026-12-06 the
    2-core mlp comparison's fourteen sweeps had medians from 1.01 to 1.12 while each sweep's own
    pairs spread far less. Counted as one sample, the pooled pairs' interval disagreed with a
    held-out half of the sweeps in 12.9% of splits where valid 95% intervals disagree in about
    5%; one value per session, in 2.6% (docs/findings/2026-12-06-sessions-as-units.md).
    """
    r = np.asarray(ratios, float)
    if r.size != len(sessions) or r.size == 0 or (r <= 0).any():
        raise ValueError("one positive ratio per session label is needed")
    by_session: dict[str, list[float]] = {}
    for value, session in zip(np.log(r), sessions, strict=True):
        by_session.setdefault(session, []).append(float(value))
    if len(by_session) < 2:
        raise ValueError("a ratio over sessions needs at least two sessions")
    return units_ratio([float(np.exp(np.median(v))) for v in by_session.values()], confidence)


def units_ratio(ratios: Sequence[float], confidence: float = CONFIDENCE) -> Summary:
    """Ratios each measured in its own unit (a session, or a round of one sweep), one value a
    unit: a t-interval over the logs around their mean (n: the units; median: the interval's
    centre, a geometric mean). With two units t is 12.7 and the interval wide: that is what two
    units know."""
    values = np.log(np.asarray(ratios, float))
    k, centre = values.size, float(values.mean())
    if k < 2:
        raise ValueError("a ratio over units needs at least two of them")
    half = t_quantile(0.5 + confidence / 2, k - 1) * float(values.std(ddof=1)) / np.sqrt(k)
    point, lo, hi = (float(np.exp(x)) for x in (centre, centre - half, centre + half))
    return Summary(
        n=k,
        median=point,
        mean=point,
        stdev=float(np.exp(values).std(ddof=1)),
        min=float(np.exp(values.min())),
        max=float(np.exp(values.max())),
        ci_low=lo,
        ci_high=hi,
        confidence=confidence,
        rel_ci_width=(hi - lo) / point,
        unstable=(hi - lo) / point > UNSTABLE_REL_WIDTH,
    )


MODES_ALPHA = 0.05  # false-alarm rate of the gap test on a normal sample
MIN_MODE_SHARE = 0.2  # each side of the gap holds at least 20% of the runs (and at least 2)
NULL_DRAWS = 2000


def modes(values: Sequence[float], alpha: float = MODES_ALPHA, seed: int = 0) -> dict[str, Any]:
    """Whether run-level values fall into two groups: a gap test with a simulated null.

    Statistic: the widest gap between consecutive sorted values that leaves at least
    MIN_MODE_SHARE of them (and 2) on each side, over the pooled standard deviation of the two
    sides. Its distribution for one normal sample of the same size is simulated (seeded, so the
    verdict is reproducible); p below `alpha` flags two modes, and the median of all values then
    describes neither, so the caller reports both groups. Skewed unimodal samples are flagged
    somewhat more often than `alpha` (tests/test_stats.py measures it).
    """
    x = np.sort(np.asarray(values, float))
    out: dict[str, Any] = {"multimodal": False, "gap_statistic": None, "p_value": None}
    split = _widest_gap(x)
    if split is None:
        return out
    statistic = _gap_statistic(x, split)
    p = float((1 + np.sum(_null_gap_statistics(x.size, seed) >= statistic)) / (1 + NULL_DRAWS))
    low, high = x[:split], x[split:]
    out.update(
        multimodal=p < alpha,
        gap_statistic=statistic,
        p_value=p,
        split=float((x[split] + x[split - 1]) / 2),
        low_mode={"n": int(low.size), "median": float(np.median(low))},
        high_mode={"n": int(high.size), "median": float(np.median(high))},
    )
    return out


@functools.lru_cache(maxsize=64)
def _null_gap_statistics(n: int, seed: int) -> np.ndarray:
    """The gap statistic of NULL_DRAWS normal samples of n values (a report asks many times)."""
    null = np.sort(np.random.default_rng(seed).standard_normal((NULL_DRAWS, n)), axis=1)
    return np.array([_gap_statistic(row, _widest_gap(row)) for row in null])


def _widest_gap(x: np.ndarray) -> int | None:
    """Index of the first value above the widest admissible gap of sorted x (None: too few)."""
    least = max(2, int(np.ceil(MIN_MODE_SHARE * x.size)))
    if x.size < 2 * least:
        return None
    cuts = np.arange(least, x.size - least + 1)
    return int(cuts[np.argmax(x[cuts] - x[cuts - 1])])


def _gap_statistic(x: np.ndarray, split: int) -> float:
    low, high = x[:split], x[split:]
    pooled = np.sqrt(
        (np.var(low, ddof=1) * (low.size - 1) + np.var(high, ddof=1) * (high.size - 1))
        / (x.size - 2)
    )
    gap = x[split] - x[split - 1]
    return float(gap / pooled) if pooled > 0 else (float("inf") if gap > 0 else 0.0)


def steady_steps(
    step_ns: Sequence[Sequence[int]], warmup_steps: int, ns_per_unit: float = 1e9
) -> list[float]:
    """Step durations of the steady state (in seconds by default; ns_per_unit=1e6 gives ms).

    Left out: the run's first `warmup_steps` steps (graph tracing, compilation, cold caches and
    thread-pool start-up) and the first step of every epoch (it also pays for starting the
    epoch's data iterator). The worker's timing and the report's step distribution both use it.
    """
    steady, seen = [], 0
    for epoch in step_ns:
        for i, ns in enumerate(epoch):
            if seen >= warmup_steps and i > 0:
                steady.append(ns / ns_per_unit)
            seen += 1
    return steady
