"""Statistics for timings: medians with distribution-free confidence intervals, ratios, drift.

numpy/scipy only (analysis/ uses this too). Timings are skewed and heavy-tailed (a noisy
neighbour makes some steps slow, none fast), so the centre is the median and its interval comes
from order statistics: exact, assumption-free coverage, and the same answer every time.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass

import numpy as np

CONFIDENCE = 0.95
UNSTABLE_REL_WIDTH = 0.10  # an interval wider than 10% of the median is flagged, not hidden
DRIFT_THRESHOLD = 0.10  # last third of the steps 10% slower (or faster) than the first third


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

    def as_dict(self) -> dict[str, float | int | bool]:
        return asdict(self)


def median_ci_ranks(n: int, confidence: float = CONFIDENCE) -> tuple[int, int, float]:
    """0-based ranks (lo, hi) of the order-statistic interval for the median, and its coverage.

    The interval [x_(k), x_(n-1-k)] covers the median with probability
    1 - 2 * P(Binomial(n, 1/2) <= k). The largest k reaching `confidence` is chosen; when no k
    does (n < 6 at 95%), the full range [min, max] is returned with the coverage it has.
    """

    from scipy.stats import binom

    # All tails at once, O(n): runs record thousands of steps, and summing exact binomial
    # coefficients per candidate k would be quadratic in big integers.
    ks = np.arange((n - 1) // 2 + 1)
    coverage = 1.0 - 2.0 * binom.cdf(ks, n, 0.5)
    reaching = np.flatnonzero(coverage >= confidence)
    k = int(reaching[-1]) if reaching.size else 0
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


def ratio_ci(
    a: Sequence[float],
    b: Sequence[float],
    confidence: float = CONFIDENCE,
    resamples: int = 2000,
    seed: int = 0,
) -> tuple[float, float | None, float | None]:
    """median(a) / median(b) with a percentile-bootstrap interval (None with a single value).

    Seeded, so the same inputs give the same interval.
    """
    a, b = np.asarray(a, float), np.asarray(b, float)
    ratio = float(np.median(a) / np.median(b))
    if a.size < 2 or b.size < 2:
        return ratio, None, None
    rng = np.random.default_rng(seed)
    ra = np.median(rng.choice(a, (resamples, a.size)), axis=1)
    rb = np.median(rng.choice(b, (resamples, b.size)), axis=1)
    tail = (1 - confidence) / 2 * 100
    lo, hi = np.percentile(ra / rb, [tail, 100 - tail])
    return ratio, float(lo), float(hi)


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
