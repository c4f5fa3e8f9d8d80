"""A scaling model: each framework's training time against cores, fitted with Amdahl's law and
the Universal Scalability Law (USL), then used to predict time and cost at core counts that were
not measured.

    Amdahl  T(n) = T1 * ((1 - f) + f / n)                         f: parallel fraction
    USL     T(n) = T1 * (1 + sigma * (n - 1) + kappa * n * (n - 1)) / n
                                                sigma: contention, kappa: coherency (crosstalk)

T1 is the model's one-core time (extrapolated when one core was not measured). Only USL can
bend back (more cores, slower), which the 2017 logs show from 32 to 64 vCPUs.

Observations. A run's training time is the sum of its epoch times, so each epoch gives one
observation of the run's time, epoch_time x epochs; runs with no epoch times give one
observation, their training time. Fits are least squares on log time (timing noise is
multiplicative), so T1 is fitted as log T1 and the laws' other parameters keep their bounds.
Intervals are Student-t on the fit's residual variance: epochs of one run vary less than runs
do, so with one run per core count they are narrower than a rerun would show.

Which law: the lower small-sample AIC (AICc) on the same observations; a difference under
AICC_MARGIN does not justify USL's extra parameter, so Amdahl is kept.

Every prediction outside the measured core range is labelled "extrapolated": its interval
covers the fit's uncertainty only, not the law ceasing to hold.
"""

from __future__ import annotations

import json
import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import yaml
from scipy import optimize
from scipy import stats as sps

from analysis.compute import effects, summary
from analysis.compute.pricing import PriceTable
from analysis.errors import AnalysisError
from analysis.load.table import runs_table
from twinbench.paths import CONF_DIR

CONFIG = CONF_DIR / "scaling" / "default.yaml"  # the shipped conf in an installed copy too
SERIES = ["source", "workload", "machine", "backend", "settings", "settings_label"]
# Burnham & Anderson's rule of thumb: an AICc gain under 2 is no real support for a model.
AICC_MARGIN = 2.0
EXTRAPOLATED = "extrapolated"
MEASURED_RANGE = "within measured range"


@dataclass(frozen=True)
class Settings:
    predict_cores: tuple[int, ...]
    chart_extrapolation_factor: float
    confidence: float
    validation_fit_cores: tuple[int, ...]
    validation_holdout_cores: int


def load_settings(path: Path = CONFIG) -> Settings:
    try:
        data = yaml.safe_load(Path(path).read_text())
    except (OSError, yaml.YAMLError) as exc:
        raise AnalysisError(f"{path}: cannot read the scaling settings ({exc})") from None
    try:
        return Settings(
            predict_cores=tuple(int(c) for c in data["predict_cores"]),
            chart_extrapolation_factor=float(data["chart_extrapolation_factor"]),
            confidence=float(data["confidence"]),
            validation_fit_cores=tuple(int(c) for c in data["validation_fit_cores"]),
            validation_holdout_cores=int(data["validation_holdout_cores"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise AnalysisError(f"{path}: bad scaling settings ({exc})") from None


# ---------------------------------------------------------------- the laws


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


# ---------------------------------------------------------------- observations


def observations(runs: pd.DataFrame) -> tuple[list[float], list[float]]:
    """(cores, time) pairs: one per epoch (epoch time x epochs) or one per run without them."""
    cores: list[float] = []
    times: list[float] = []
    for _, run in runs.iterrows():
        epochs = _epoch_times(run.get("epoch_times_s"))
        values = [t * len(epochs) for t in epochs] if len(epochs) > 1 else []
        if not values and _positive(run.get("train_time_s")):
            values = [float(run["train_time_s"])]
        for value in values:
            if _positive(value):
                cores.append(float(run["cpus"]))
                times.append(value)
    return cores, times


def _positive(value: Any) -> bool:
    try:
        return math.isfinite(float(value)) and float(value) > 0
    except (TypeError, ValueError):
        return False


def _epoch_times(value: Any) -> list[float]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except json.JSONDecodeError:
            return []
    if isinstance(value, list | tuple | np.ndarray):
        return [float(v) for v in value if _positive(v)]
    return []


# ---------------------------------------------------------------- the model over a report


@dataclass
class SeriesModel:
    key: dict[str, Any]
    measured_cores: list[float]
    reference_cpus: float
    fits: list[Fit]
    chosen: Fit | None

    @property
    def reference_time(self) -> float:
        """The chosen law's time on the fewest cores measured: speed-ups are relative to it
        (in the law's own terms, whatever metric the report's measured speed-ups use)."""
        assert self.chosen is not None
        return math.exp(float(self.chosen.log_time(self.reference_cpus)))

    @property
    def label(self) -> str:
        settings = self.key["settings_label"]
        return self.key["backend"] + ("" if settings == "default" else f" [{settings}]")

    def is_extrapolated(self, cores: float) -> bool:
        return not min(self.measured_cores) <= cores <= max(self.measured_cores)


@dataclass
class ScalingModel:
    settings: Settings
    series: list[SeriesModel] = field(default_factory=list)
    fits: pd.DataFrame = field(default_factory=pd.DataFrame)
    predictions: pd.DataFrame = field(default_factory=pd.DataFrame)
    optimal: pd.DataFrame = field(default_factory=pd.DataFrame)

    def for_workload(self, source: str, workload: str) -> list[SeriesModel]:
        return [
            s
            for s in self.series
            if s.key["source"] == source and s.key["workload"] == workload and s.chosen
        ]


def model_series(
    hardware: pd.DataFrame, runs: pd.DataFrame, settings: Settings | None = None
) -> list[SeriesModel]:
    """One SeriesModel per hardware-effect series, fitted on that series' successful runs."""
    if hardware.empty:
        return []
    ok = runs[(runs["status"] == "ok") & (runs["device"] == "cpu")]
    out = []
    for key, series in hardware.groupby(SERIES, dropna=False, sort=False):
        key = dict(zip(SERIES, key, strict=True))
        chosen_runs = ok[
            (ok["source"] == key["source"])
            & (ok["machine"] == key["machine"])
            & (ok["workload"] == key["workload"])
            & ok["config_label"].isin(series["config_label"])
        ]
        cores, times = observations(chosen_runs)
        fits = [fit(law, cores, times) for law in LAWS]
        ref = series.sort_values("cpus").iloc[0]
        out.append(
            SeriesModel(
                key=key,
                measured_cores=sorted(float(c) for c in series["cpus"].unique()),
                reference_cpus=float(ref["cpus"]),
                fits=fits,
                chosen=choose(fits),
            )
        )
    return out


def fits_table(series: list[SeriesModel], confidence: float) -> pd.DataFrame:
    rows = []
    for s in series:
        for f in s.fits:
            rows.append(
                {
                    **s.key,
                    "law": f.law.name,
                    "chosen": f is s.chosen,
                    "measured_cores": ", ".join(f"{c:g}" for c in s.measured_cores),
                    "n_obs": f.n_obs,
                    "aicc": f.aicc,
                    "rss_log": f.rss,
                    **f.parameters(confidence),
                    "note": f.note,
                }
            )
    return pd.DataFrame(rows)


def predict(
    s: SeriesModel, cores: Sequence[float], confidence: float, price: PriceTable | None
) -> pd.DataFrame:
    """Time (and cost, with a price table) at `cores` from the series' chosen law."""
    f = s.chosen
    if f is None:
        return pd.DataFrame()
    n = np.asarray(cores, dtype=float)
    log_t, se = f.log_time(n), f.log_time_se(n)
    q = f.t_quantile(confidence)
    rows = []
    for c, lt, e in zip(n, log_t, se, strict=True):
        rate = price.per_second("cpu", c) if price is not None else None
        time, low, high = math.exp(lt), math.exp(lt - q * e), math.exp(lt + q * e)
        rows.append(
            {
                **s.key,
                "law": f.law.name,
                "cpus": c,
                "predicted_time": time,
                "predicted_time_low": low,
                "predicted_time_high": high,
                "predicted_speedup": s.reference_time / time,
                "predicted_cost": time * rate if rate is not None else math.nan,
                "predicted_cost_low": low * rate if rate is not None else math.nan,
                "predicted_cost_high": high * rate if rate is not None else math.nan,
                "range": EXTRAPOLATED if s.is_extrapolated(c) else MEASURED_RANGE,
            }
        )
    return pd.DataFrame(rows)


def optimal_table(predictions: pd.DataFrame) -> pd.DataFrame:
    """Per series: the core count with the lowest predicted cost, and with the lowest time."""
    if predictions.empty:
        return pd.DataFrame()
    rows = []
    for key, p in predictions.groupby(SERIES, dropna=False, sort=False):
        row = dict(zip(SERIES, key, strict=True))
        fastest = p.loc[p["predicted_time"].idxmin()]
        row.update(
            fastest_cpus=fastest["cpus"],
            fastest_time=fastest["predicted_time"],
            fastest_range=fastest["range"],
        )
        if p["predicted_cost"].notna().any():
            cheapest = p.loc[p["predicted_cost"].idxmin()]
            row.update(
                cheapest_cpus=cheapest["cpus"],
                cheapest_cost=cheapest["predicted_cost"],
                cheapest_cost_low=cheapest["predicted_cost_low"],
                cheapest_cost_high=cheapest["predicted_cost_high"],
                cheapest_time=cheapest["predicted_time"],
                cheapest_range=cheapest["range"],
            )
        rows.append(row)
    return pd.DataFrame(rows)


def build(
    hardware: pd.DataFrame,
    runs: pd.DataFrame,
    prices: dict[str, PriceTable],
    settings: Settings | None = None,
) -> ScalingModel:
    """Fit every hardware-effect series; predict and price at the configured core counts."""
    settings = settings or load_settings()
    series = model_series(hardware, runs, settings)
    cores = sorted(set(settings.predict_cores))
    predictions = [
        predict(
            s,
            sorted(set(cores) | set(s.measured_cores)),
            settings.confidence,
            prices.get(s.key["source"]),
        )
        for s in series
    ]
    predictions = [p for p in predictions if not p.empty]
    table = pd.concat(predictions, ignore_index=True) if predictions else pd.DataFrame()
    return ScalingModel(
        settings=settings,
        series=series,
        fits=fits_table(series, settings.confidence),
        predictions=table,
        optimal=optimal_table(table),
    )


# ---------------------------------------------------------------- validation on held-out cores


def validate(
    hardware: pd.DataFrame, runs: pd.DataFrame, settings: Settings | None = None
) -> pd.DataFrame:
    """Fit each law on the validation cores only and predict the held-out core count.

    One row per series and law (plus the chosen law) where every one of those core counts was
    measured: the prediction, its interval, the measured time and the relative error.
    """
    settings = settings or load_settings()
    fit_cores = set(settings.validation_fit_cores)
    holdout = settings.validation_holdout_cores
    rows = []
    for key, series in hardware.groupby(SERIES, dropna=False, sort=False):
        if not fit_cores | {holdout} <= set(series["cpus"]):
            continue
        measured = float(series.loc[series["cpus"] == holdout, "time"].iloc[0])
        train = series[series["cpus"].isin(fit_cores)]
        model = model_series(train, runs, settings)[0]
        for f in model.fits:
            row = {
                **dict(zip(SERIES, key, strict=True)),
                "law": f.law.name,
                "chosen": f is model.chosen,
                "fit_cores": ", ".join(str(c) for c in sorted(fit_cores)),
                "holdout_cpus": holdout,
                "measured_time": measured,
                "aicc": f.aicc,
                "note": f.note,
            }
            if f.ok:
                lt, se = float(f.log_time(holdout)), float(f.log_time_se(holdout)[0])
                q = f.t_quantile(settings.confidence)
                time, low, high = math.exp(lt), math.exp(lt - q * se), math.exp(lt + q * se)
                row.update(
                    predicted_time=time,
                    predicted_time_low=low,
                    predicted_time_high=high,
                    error=(time - measured) / measured,
                    covered=bool(low <= measured <= high),
                )
            rows.append(row)
    return pd.DataFrame(rows)


def validation_markdown(table: pd.DataFrame) -> str:
    """The validation as a Markdown table (the README's), chosen law first per series."""
    lines = [
        "| workload | build | law | predicted 64 vCPUs (s) | 95% interval (s) | measured (s) "
        "| error | in interval |",
        "|---|---|---|---:|---:|---:|---:|---|",
    ]
    for _, r in table.iterrows():
        if pd.isna(r.get("predicted_time")):
            continue
        law = r["law"] + (" (chosen)" if r["chosen"] else "")
        build = json.loads(r["settings"]).get("build", r["settings_label"])
        lines.append(
            f"| {r['workload']} | {build} | {law} | {r['predicted_time']:.0f} | "
            f"{r['predicted_time_low']:.0f} to {r['predicted_time_high']:.0f} | "
            f"{r['measured_time']:.0f} | {r['error']:+.1%} | {'yes' if r['covered'] else 'no'} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m analysis.compute.scaling <2017 logs>`: the held-out validation as Markdown."""
    import sys

    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print(
            "usage: python -m analysis.compute.scaling <folder with the 2017 logs>",
            file=sys.stderr,
        )
        return 2
    try:
        runs = runs_table([Path(args[0])])
        hardware = effects.hardware(summary.configs(runs, "train_time", 0.1))
        table = validate(hardware, runs)
    except AnalysisError as exc:
        print(f"analysis: error: {exc}", file=sys.stderr)
        return 2
    if table.empty:
        message = "no series was measured at every validation core count"
        print(f"analysis: error: {message}", file=sys.stderr)
        return 2
    print(validation_markdown(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
