"""The scaling model: Amdahl's law and USL fitted to time against cores, the law chosen by AICc,
predictions labelled extrapolated past the measured cores, and the 2017 validation in the README.

Synthetic series are generated here from known parameters with multiplicative noise, so the
fits must recover what went in.
"""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest

from analysis.compute import effects, pipeline, pricing, summary
from analysis.compute.scaling import honest, laws, observations, predictions, series, validation
from analysis.load.table import runs_table
from tests.test_analysis_legacy import REFERENCE, needs_reference
from twinbench.paths import REPO_ROOT


def noisy(times: dict[int, float], per_core: int = 12, rel_noise: float = 0.02, seed: int = 0):
    """(cores, times) with `per_core` observations around each given time."""
    rng = np.random.default_rng(seed)
    cores, values = [], []
    for n, t in times.items():
        cores += [n] * per_core
        values += list(t * np.exp(rng.normal(0, rel_noise, per_core)))
    return cores, values


def amdahl(t1: float, f: float, n: float) -> float:
    return t1 * ((1 - f) + f / n)


def usl(t1: float, sigma: float, kappa: float, n: float) -> float:
    return t1 * (1 + sigma * (n - 1) + kappa * n * (n - 1)) / n


def series_model(cores, times, fits=None) -> series.SeriesModel:
    """Every (cores, time) taken as one run's: the same fit gives the prediction intervals."""
    fits = fits or [laws.fit(law, cores, times) for law in laws.LAWS]
    key = dict(source="s", workload="w", machine="m", backend="torch", settings="{}",
               settings_label="default")  # fmt: skip
    return series.SeriesModel(
        key=key,
        measured_cores=sorted({float(c) for c in cores}),
        reference_cpus=float(min(cores)),
        fits=fits,
        chosen=laws.choose(fits),
        run_fit=laws.choose(fits),
        run_cores=[float(c) for c in cores],
    )


def test_amdahl_data_recovers_its_parallel_fraction_and_keeps_the_simpler_law():
    cores, times = noisy({n: amdahl(100.0, 0.9, n) for n in (1, 2, 4, 8)})
    fits = {f.law.name: f for f in (laws.fit(law, cores, times) for law in laws.LAWS)}
    params = fits["Amdahl"].parameters(0.95)
    assert params["parallel_fraction_low"] <= 0.9 <= params["parallel_fraction_high"]
    assert params["t1_s_low"] <= 100.0 <= params["t1_s_high"]
    assert abs(params["parallel_fraction"] - 0.9) < 0.02
    assert laws.choose(list(fits.values())).law is laws.AMDAHL


def test_retrograde_data_chooses_usl_which_alone_predicts_the_slowdown():
    truth = {n: usl(100.0, 0.02, 0.004, n) for n in (1, 2, 4, 8, 16, 32)}
    assert truth[32] > truth[16]  # more cores, slower: only USL can say so
    cores, times = noisy(truth)
    model = series_model(cores, times)
    assert model.chosen is not None and model.chosen.law is laws.USL
    params = model.chosen.parameters(0.95)
    assert params["kappa_low"] <= 0.004 <= params["kappa_high"]
    amdahl_fit = next(f for f in model.fits if f.law is laws.AMDAHL)
    assert float(np.exp(amdahl_fit.log_time(64))) < truth[32]  # Amdahl only ever speeds up


def test_predictions_label_extrapolation_and_cover_the_truth_inside_the_range():
    cores, times = noisy({n: amdahl(200.0, 0.95, n) for n in (2, 4, 16)})
    model = series_model(cores, times)
    table = pricing.load(pricing.LEGACY_TABLE)
    p = predictions.predict(model, [1, 2, 8, 16, 64], 0.95, table).set_index("cpus")
    # 64 cores is 4x the most measured: out of range, a point value and no interval.
    assert list(p["range"]) == [series.EXTRAPOLATED, series.MEASURED_RANGE,
                                series.MEASURED_RANGE, series.MEASURED_RANGE,
                                honest.OUT_OF_RANGE]  # fmt: skip
    assert math.isnan(p.loc[64, "predicted_time_low"]) and p.loc[64, "predicted_time"] > 0
    assert (
        p.loc[8, "predicted_time_low"] <= amdahl(200.0, 0.95, 8) <= p.loc[8, "predicted_time_high"]
    )
    # The band widens with the distance from the measurements.
    width = (p["predicted_time_high"] - p["predicted_time_low"]) / p["predicted_time"]
    assert width[1] > width[8]
    rate = table.per_second("cpu", 64)
    assert p.loc[64, "predicted_cost"] == pytest.approx(p.loc[64, "predicted_time"] * rate)


def test_linear_prices_make_the_fewest_cores_cheapest_and_the_usl_peak_fastest():
    truth = {n: usl(100.0, 0.02, 0.004, n) for n in (1, 2, 4, 8, 16, 32)}
    model = series_model(*noisy(truth))
    cores = [1, 2, 4, 8, 16, 32, 64]
    p = predictions.predict(model, cores, 0.95, pricing.load(pricing.LEGACY_TABLE))
    best = predictions.optimal_table(p).iloc[0]
    assert best["cheapest_cpus"] == 1
    # USL's fastest point is near sqrt((1 - sigma) / kappa) = 15.7 cores.
    assert best["fastest_cpus"] == 16
    assert best["fastest_range"] == series.MEASURED_RANGE


def test_a_law_with_more_parameters_than_core_counts_is_not_fitted():
    cores, times = noisy({n: amdahl(50.0, 0.8, n) for n in (1, 4)})
    fits = {f.law.name: f for f in (laws.fit(law, cores, times) for law in laws.LAWS)}
    assert not fits["USL"].ok and "needs 3 core counts, has 2" in fits["USL"].note
    assert fits["Amdahl"].ok
    assert laws.choose(list(fits.values())).law is laws.AMDAHL


def test_epochs_are_observations_of_the_whole_run():
    runs = pd.DataFrame(
        [
            {"cpus": 2, "epoch_times_s": "[1.0, 3.0]", "train_time_s": 4.0},
            {"cpus": 4, "epoch_times_s": "[]", "train_time_s": 2.5},
        ]
    )
    assert observations.observations(runs) == ([2.0, 2.0, 4.0], [2.0, 6.0, 2.5])


@needs_reference
def test_2017_validation_matches_the_readme():
    runs = runs_table([REFERENCE])
    hardware = effects.hardware(summary.configs(runs, "train_time", 0.1))
    table = validation.validate(hardware, runs)
    # cifar10_cnn, cnn, mlp x pip, compiled; both laws each.
    assert len(table) == 12 and table["chosen"].sum() == 6
    measured = table["measured_time"]
    assert (table["error"] == (table["predicted_time"] - measured) / measured).all()
    readme = (REPO_ROOT / "docs" / "usage" / "report.md").read_text()
    assert validation.validation_markdown(table) in readme


@needs_reference
def test_the_report_draws_fits_with_an_extrapolated_band(tmp_path):
    runs = runs_table([REFERENCE])
    an = pipeline.analyze(runs, pipeline.Options(inputs=[REFERENCE]))
    assert an.scaling is not None and len(an.scaling.series) == 6
    preds = an.scaling.predictions
    assert set(preds.loc[preds["cpus"] == 128, "range"]) == {series.EXTRAPOLATED}
    assert set(preds.loc[preds["cpus"] > 128, "range"]) == {honest.OUT_OF_RANGE}
    assert set(preds.loc[preds["cpus"].isin([8, 16, 32, 64]), "range"]) == {series.MEASURED_RANGE}
    assert not math.isnan(preds["predicted_cost"].iloc[0])

    from analysis.render import report, scaling_report

    hw = an.hardware[an.hardware["source"] == "2017 logs"]
    speedup_axis = scaling_report.chart(hw, "cnn", an).axes[0]
    fitted = [line.get_label() for line in speedup_axis.get_lines() if " fit: " in line.get_label()]
    assert sorted(fitted) == [
        "USL fit: tensorflow [build=compiled]",
        "USL fit: tensorflow [build=pip]",
    ]
    assert max(speedup_axis.get_lines()[-1].get_xdata()) == 64 * 4  # drawn past the measurements
    assert series.EXTRAPOLATED in [t.get_text() for t in speedup_axis.texts]

    html = report.write(an, tmp_path).read_text()
    assert "Scaling model" in html and "extrapolated" in html
    assert (tmp_path / "report_files" / "tables" / "scaling_fits.csv").is_file()
