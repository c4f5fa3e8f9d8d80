"""The ratio interval of independent repeats (twinbench.stats.ratio_ci) covers what it claims.

A/A: both sides one configuration, so a 95% interval must hold 1.0 in about 95% of draws. Drawn
from this machine's noise model (benchmarks.diagnostics.ratio_coverage.process_noise, the one
tests/test_sequential.py uses) and split from real repeats (the committed A/A file). The
percentile bootstrap the report printed before fails the same tests, so they can fail.
docs/findings/2026-12-01-ratio-interval-coverage.md has the figures.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pytest

from benchmarks.diagnostics import ratio_coverage as rc
from twinbench import stats
from twinbench.paths import REPO_ROOT

AA_FILE = REPO_ROOT / "measurements" / "2026-12-01" / "ratio-coverage" / "aa-groups.json"
# 2000 draws: the standard error of a coverage near 0.95 is 0.0049, so 0.93 is four of them
# below nominal; a sound interval fails it by chance about once in 30,000 runs of the test.
FLOOR = 0.93
# Real splits are fewer and not independent (a group's halves share runs; a group's train time
# and steady step come from the same runs): about 100 groups put the standard error near 0.02,
# so the floor is nominal minus 2.5 of them.
REAL_FLOOR = 0.90


# ------------------------------------------------------------------------------ t quantile


def test_t_quantile_has_the_closed_forms_at_one_and_two_degrees_of_freedom():
    # dof 1 (Cauchy): tan(pi (p - 1/2)); dof 2: (2p - 1) sqrt(2 / (1 - (2p - 1)^2))
    for p in (0.9, 0.95, 0.975, 0.995):
        assert stats.t_quantile(p, 1) == pytest.approx(math.tan(math.pi * (p - 0.5)), rel=1e-5)
        q = 2 * p - 1
        assert stats.t_quantile(p, 2) == pytest.approx(q * math.sqrt(2 / (1 - q * q)), rel=1e-5)


def test_t_quantile_agrees_with_scipy_at_fractional_degrees_of_freedom():
    t = pytest.importorskip("scipy.stats").t
    for dof in (1.0, 1.3, 1.9, 2.5, 3.7, 6.0, 12.0, 40.0, 300.0):
        for p in (0.95, 0.975):
            assert stats.t_quantile(p, dof) == pytest.approx(t.ppf(p, dof), rel=1e-5)


def test_t_quantile_refuses_what_it_cannot_do():
    with pytest.raises(ValueError):
        stats.t_quantile(0.4, 3)
    with pytest.raises(ValueError):
        stats.t_quantile(0.975, 0.5)


# ------------------------------------------------------------------------------ the contract


def test_the_interval_holds_the_point_and_needs_two_positive_runs_a_side():
    ratio, lo, hi = stats.ratio_ci([2.0, 2.2, 1.8, 2.1], [1.0, 1.1, 0.9, 1.0])
    assert ratio == pytest.approx(2.05)  # the ratio of medians, as before
    assert lo < ratio < hi
    assert stats.ratio_ci([2.0], [1.0, 1.1]) == (2.0 / 1.05, None, None)
    assert stats.ratio_ci([2.0, 0.0], [1.0, 1.1])[1:] == (None, None)
    assert stats.ratio_ci([3.0, 3.0], [6.0, 6.0]) == (0.5, 0.5, 0.5)  # no spread, no width


def test_the_interval_is_welchs_on_logs():
    a, b = [1.0, 1.2, 1.1], [2.0, 2.6]
    la, lb = np.log(a), np.log(b)
    va, vb = la.var(ddof=1) / 3, lb.var(ddof=1) / 2
    dof = (va + vb) ** 2 / (va**2 / 2 + vb**2 / 1)
    half = stats.t_quantile(0.975, dof) * math.sqrt(va + vb)
    centre = la.mean() - lb.mean()
    _, lo, hi = stats.ratio_ci(a, b)
    assert (lo, hi) == pytest.approx((math.exp(centre - half), math.exp(centre + half)))


def test_a_point_outside_the_log_interval_widens_it_to_hold_the_point():
    # b: 8 fast runs and 7 twice as slow. Its median is a fast run, its mean of logs halfway
    # up, so the medians' ratio (1.0) lies above the interval of the logs' means: kept in it.
    a, b = [1.0] * 15, [1.0] * 8 + [2.0] * 7
    ratio, lo, hi = stats.ratio_ci(a, b)
    assert ratio == 1.0 and lo < 0.9 and hi == 1.0


# ------------------------------------------------------------------------------ simulated A/A


@pytest.mark.parametrize("n", rc.SIDES)
def test_the_interval_covers_one_on_simulated_aa_draws(n):
    assert rc.simulated_coverage(stats.ratio_ci, n) >= FLOOR


@pytest.mark.parametrize("n", [2, 3])  # at 4 it sits on the floor (0.93), at 7 above it
def test_mutation_the_old_percentile_bootstrap_fails_the_same_test(n):
    assert rc.simulated_coverage(rc.percentile_bootstrap, n, draws=1000) < FLOOR


def test_a_thirty_percent_gap_is_still_found_with_four_runs_a_side():
    # An interval that covers by being the whole line would pass the tests above: this one not.
    rng = np.random.default_rng(1)
    a = np.exp(math.log(1.3) + rc.process_noise(rng, (500, 4)))
    b = np.exp(rc.process_noise(rng, (500, 4)))
    found = np.mean([stats.ratio_ci(x, y)[1] > 1.0 for x, y in zip(a, b, strict=True)])
    assert found > 0.9


# ------------------------------------------------------------------------------ real A/A


@pytest.fixture(scope="module")
def groups() -> list[dict]:
    return json.loads(AA_FILE.read_text())["groups"]


def test_the_aa_file_holds_groups_of_one_configuration_in_run_order(groups):
    assert len(groups) >= 8
    assert all(len(g["values"]) >= rc.MIN_GROUP for g in groups)
    assert all(v > 0 for g in groups for v in g["values"])


def test_the_interval_covers_one_on_real_aa_splits(groups):
    # 25 random splits a group (the diagnostic draws 200) keep this test to a few seconds
    rows = rc.coverage_table(groups, {"now": stats.ratio_ci}, (2, 3), count=25)
    assert {(r["scheme"], r["n"]) for r in rows} == {
        (s, n) for s in ("random", "blocks") for n in (2, 3)
    }
    for row in rows:
        assert row["now"] >= REAL_FLOOR, row


def test_mutation_the_old_bootstrap_fails_on_real_aa_splits(groups):
    # blocks only: a few splits a group keep the 2000 resamples of each affordable
    (row,) = rc.coverage_table(groups, {"before": rc.percentile_bootstrap}, (2,), ("blocks",))
    assert row["before"] < REAL_FLOOR


# ------------------------------------------------------- the release history's verdicts


ALL_TIMES = ("steady_step_s", "median_epoch_s", "train_time_s")


def test_release_verdicts_between_identical_software_are_rarely_directional(groups):
    # analysis/compute/release_history.py's neighbour verdict on real A/A splits: "faster" or
    # "slower" there is a false decision; at most 5%, as the decision engine's alpha
    rows = rc.verdict_table(groups, ALL_TIMES, (2, 3), count=25)
    assert {(r["scheme"], r["n"]) for r in rows} == {
        (s, n) for s in ("blocks", "random") for n in (2, 3)
    }
    for row in rows:
        assert row["false"] <= 0.05, row
        assert sum(row[w] for w in ("faster", "slower", "equivalent", "undecided")) == (
            pytest.approx(1.0)
        )


def test_mutation_a_verdict_read_from_the_point_alone_fails_the_same_test(groups, monkeypatch):
    # the ratio of medians beyond the margin, its interval ignored: what a release history
    # that printed "slower" for any 5% gap would say
    from analysis.compute import release_history

    def point_only(later, earlier, design):
        ratio = float(np.median(later) / np.median(earlier))
        word = "slower" if ratio > 1.05 else "faster" if ratio < 1 / 1.05 else "equivalent"
        return ratio, ratio, ratio, word

    monkeypatch.setattr(release_history, "neighbour_verdict", point_only)
    rows = rc.verdict_table(groups, ALL_TIMES, (2,), ("blocks",))
    assert rows[0]["false"] > 0.05


def test_a_later_release_thirty_percent_slower_is_called_slower_with_four_runs_a_side():
    group = {"statistic": "steady_step_s", "values": [1.0, 1.02, 0.99, 1.01, 1.3, 1.31, 1.29, 1.3]}
    (row,) = rc.verdict_table([group], sides=(4,), schemes=("blocks",))
    assert row["slower"] == 1.0 and row["false"] == 1.0  # "false" counts any direction
