"""Scaling intervals that cover: run-level prediction intervals checked on held-out core counts.

The interval the scaling model printed before counted every epoch as an observation and gave the
curve's uncertainty alone; on runs whose time varies from run to run (this machine: +-10%) it
misses the held-out run most of the time. The run-level prediction interval (honest.py) must
hold it about as often as it claims, and where no interval can be honest none is given.
"""

from __future__ import annotations

import math
import os
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from analysis.compute.scaling import coverage, honest, laws

CORES = (1, 2, 4, 8, 16)


def _runs(rng: np.random.Generator) -> pd.DataFrame:
    """One run per core count of an Amdahl workload: 5% run-to-run, 1% epoch-to-epoch noise."""
    rows = []
    for n in CORES:
        run = 100.0 * (0.1 + 0.9 / n) * math.exp(rng.normal(0, 0.05))
        epochs = list(run / 10 * np.exp(rng.normal(0, 0.01, 10)))
        rows.append({"cpus": n, "epoch_times_s": epochs, "train_time_s": sum(epochs)})
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def simulated() -> pd.DataFrame:
    """Leave each core count out of 40 simulated series (seeded): both intervals per hold-out."""
    rng, rows = np.random.default_rng(3), []
    for _ in range(40):
        runs = _runs(rng)
        for held in CORES[1:-1]:  # the inner ones: held-out ends would be extrapolations
            measured = float(runs.loc[runs["cpus"] == held, "train_time_s"].iloc[0])
            rows.append(coverage._both(runs[runs["cpus"] != held], held, measured, 0.95))
    return pd.DataFrame(rows)


def test_run_level_intervals_cover_about_as_often_as_they_claim(simulated) -> None:
    given = simulated["run_covered"].dropna()
    assert given.size >= 100 and given.mean() >= 0.88


def test_mutation_the_epoch_curve_interval_misses_run_to_run_variation(simulated) -> None:
    """The same check fails for the interval without the run-level variance (the one-line
    mutation `s2 = 0`, which is what the curve interval is): it covers far less than 95%."""
    assert simulated["curve_covered"].dropna().mean() < 0.6


def test_no_interval_from_fewer_than_three_core_counts_or_far_beyond_them() -> None:
    cores, times = [2.0, 4.0, 2.0, 4.0], [50.0, 27.0, 52.0, 26.0]
    f = laws.fit(laws.AMDAHL, cores, times)
    assert f.ok and honest.prediction_interval(f, 3, cores, 0.95) is None  # two core counts
    cores3, times3 = [*cores, 8.0], [*times, 15.0]
    f3 = laws.fit(laws.AMDAHL, cores3, times3)
    assert honest.prediction_interval(f3, 16, cores3, 0.95) is not None  # 2x: still in range
    assert honest.prediction_interval(f3, 17, cores3, 0.95) is None  # past 2x: out of range
    assert honest.prediction_interval(f3, 0.5, cores3, 0.95) is None


LOGS = os.environ.get("TWINBENCH_LEGACY_LOGS")


@pytest.mark.skipif(not LOGS, reason="set TWINBENCH_LEGACY_LOGS to the 2017 logs' folder")
def test_on_the_2017_logs_run_level_intervals_cover_and_epoch_ones_do_not() -> None:
    from analysis.compute import effects, summary
    from analysis.load.table import runs_table

    runs = runs_table([Path(str(LOGS))])
    hardware = effects.hardware(summary.configs(runs, "train_time", 0.1))
    table = coverage.leave_one_out(hardware, runs)
    found = coverage.coverage(table)
    # 3 workloads x 2 builds x 4 core counts (docs/findings/2026-12-01-scaling-coverage.md)
    assert found["held_out"] == 24
    assert found["run_coverage"] >= 0.9 and found["curve_coverage"] <= 0.25
