"""The laws (Amdahl, USL) as functions of cores, a least-squares fit of one to a series on log
time with its Student-t intervals (delta method for predictions), and the choice by AICc."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

# Burnham & Anderson's rule of thumb: an AICc gain under 2 is no real support for a model.
AICC_MARGIN = 2.0


@dataclass(frozen=True)
class Law:
    name: str
    params: tuple[str, ...]  # after log_T1, which every law has
    shape: Callable[..., np.ndarray]  # T(n) / T1
    start: tuple[float, ...]
    lower: tuple[float, ...]
    upper: tuple[float, ...]

    @property
    def n_params(self) -> int:
        return 1 + len(self.params)

    def log_time(self, n: np.ndarray, log_t1: float, *rest: float) -> np.ndarray:
        return log_t1 + np.log(self.shape(np.asarray(n, dtype=float), *rest))


AMDAHL = Law(
    name="Amdahl",
    params=("parallel_fraction",),
    shape=lambda n, f: (1 - f) + f / n,
    start=(0.9,),
    lower=(0.0,),
    upper=(1.0,),
)
USL = Law(
    name="USL",
    params=("sigma", "kappa"),
    shape=lambda n, sigma, kappa: (1 + sigma * (n - 1) + kappa * n * (n - 1)) / n,
    start=(0.05, 1e-4),
    lower=(0.0, 0.0),
    upper=(1.0, np.inf),
)
LAWS = (AMDAHL, USL)


@dataclass
class Fit:
    """One law fitted to one series (or a reason it could not be)."""

    law: Law
    values: np.ndarray | None = None  # log_T1, then law.params
    cov: np.ndarray | None = None
    n_obs: int = 0
    dof: int = 0
    rss: float = math.nan
    aicc: float = math.nan
    note: str = ""

    @property
    def ok(self) -> bool:
        return self.values is not None

    def log_time(self, n: Any) -> np.ndarray:
        assert self.values is not None
        return self.law.log_time(np.asarray(n, dtype=float), *self.values)

    def log_time_se(self, n: Any) -> np.ndarray:
        """Standard error of log T(n) by the delta method (NaN without a covariance)."""
        n = np.atleast_1d(np.asarray(n, dtype=float))
        if self.cov is None or not np.all(np.isfinite(self.cov)):
            return np.full(n.shape, math.nan)
        assert self.values is not None
        grads = np.empty((len(n), len(self.values)))
        for j, value in enumerate(self.values):
            step = 1e-6 * max(abs(value), 1e-3)
            up, down = self.values.copy(), self.values.copy()
            up[j] += step
            down[j] -= step
            grads[:, j] = (self.law.log_time(n, *up) - self.law.log_time(n, *down)) / (2 * step)
        return np.sqrt(np.maximum(np.einsum("ij,jk,ik->i", grads, self.cov, grads), 0.0))

    def t_quantile(self, confidence: float) -> float:
        from scipy import stats as sps  # where a fit is used: a sweep's summary often fits none

        return float(sps.t.ppf(0.5 + confidence / 2, self.dof)) if self.dof > 0 else math.nan

    def parameters(self, confidence: float) -> dict[str, float]:
        """T1 (s) and the law's parameters, each with its interval (`_low`, `_high`)."""
        if not self.ok:
            return {}
        assert self.values is not None
        q = self.t_quantile(confidence)
        se = (
            np.sqrt(np.diag(self.cov))
            if self.cov is not None and np.all(np.isfinite(self.cov))
            else np.full(len(self.values), math.nan)
        )
        out: dict[str, float] = {}
        names = ("t1_s", *self.law.params)
        bounds = [(-np.inf, np.inf), *list(zip(self.law.lower, self.law.upper, strict=True))]
        for name, value, s, (lo, hi) in zip(names, self.values, se, bounds, strict=True):
            low, high = value - q * s, value + q * s
            if name == "t1_s":  # fitted as log T1
                value, low, high = math.exp(value), math.exp(low), math.exp(high)
            else:  # an interval past a bound the parameter cannot cross stops at the bound
                low, high = max(low, lo), min(high, hi)
            out[name] = float(value)
            out[f"{name}_low"], out[f"{name}_high"] = float(low), float(high)
        return out


def fit(law: Law, cores: Sequence[float], times: Sequence[float]) -> Fit:
    """Least squares of log time on cores; parameters kept inside the law's bounds."""
    n = np.asarray(cores, dtype=float)
    y = np.log(np.asarray(times, dtype=float))
    distinct = len(set(n.tolist()))
    if distinct < law.n_params:
        return Fit(law, n_obs=len(n), note=f"needs {law.n_params} core counts, has {distinct}")
    # Start T1 from perfect scaling of the fewest cores' mean time.
    fewest = n.min()
    start = (float(np.mean(y[n == fewest]) + math.log(fewest)), *law.start)
    try:
        with warnings.catch_warnings():
            # A singular Jacobian gives an infinite covariance: reported as no interval below.
            from scipy import optimize  # only where a law is fitted, as sps above

            warnings.simplefilter("ignore", optimize.OptimizeWarning)
            values, cov = optimize.curve_fit(
                law.log_time,
                n,
                y,
                p0=start,
                bounds=((-np.inf, *law.lower), (np.inf, *law.upper)),
                maxfev=20000,
            )
    except (RuntimeError, ValueError) as exc:
        return Fit(law, n_obs=len(n), note=f"did not converge ({exc})")
    residuals = y - law.log_time(n, *values)
    rss = float(np.sum(residuals**2))
    k, m = law.n_params, len(n)
    # A perfect fit (as many observations as parameters) has RSS 0 and no AICc.
    aicc = (
        m * math.log(max(rss, 1e-300) / m) + 2 * k + 2 * k * (k + 1) / (m - k - 1)
        if m > k + 1
        else math.nan
    )
    return Fit(
        law,
        values=np.asarray(values, dtype=float),
        cov=np.asarray(cov, dtype=float) if m > k else None,
        n_obs=m,
        dof=m - k,
        rss=rss,
        aicc=aicc,
        note="" if m > k + 1 else "too few observations for intervals and AICc",
    )


def choose(fits: Sequence[Fit]) -> Fit | None:
    """Lower AICc wins; USL must beat Amdahl by AICC_MARGIN to be chosen over it."""
    ok = [f for f in fits if f.ok]
    if not ok:
        return None
    by_name = {f.law.name: f for f in ok}
    amdahl, usl = by_name.get(AMDAHL.name), by_name.get(USL.name)
    if amdahl is None or usl is None:
        return ok[0]
    if math.isnan(usl.aicc) or math.isnan(amdahl.aicc):
        return amdahl
    return usl if usl.aicc < amdahl.aicc - AICC_MARGIN else amdahl
