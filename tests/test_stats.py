"""Timing statistics: known inputs give known medians, intervals, ratios and drift verdicts."""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from frameworks.timing import RunClock
from twinbench import stats
from twinbench.config.spec import build_spec
from twinbench.stats import steady_steps
from twinbench.worker.assemble import timing_record


@pytest.mark.parametrize(
    ("n", "ranks", "coverage"),
    [
        (3, (0, 2), 0.75),  # too few for 95%: the whole range, with the coverage it has
        (5, (0, 4), 0.9375),
        (6, (0, 5), 0.96875),
        (10, (1, 8), 1 - 2 * 11 / 1024),
        (20, (5, 14), None),
        (100, (39, 60), None),
    ],
)
def test_median_interval_uses_the_binomial_order_statistics(n, ranks, coverage):
    lo, hi, achieved = stats.median_ci_ranks(n)
    assert (lo, hi) == ranks
    if coverage is not None:
        assert achieved == pytest.approx(coverage)
    if n >= 6:
        assert achieved >= 0.95


def test_summary_of_known_values():
    s = stats.summarize([5.0, 1.0, 4.0, 2.0, 3.0, 100.0, 6.0, 7.0, 8.0, 9.0])
    assert s.median == 5.5 and s.n == 10 and s.min == 1.0 and s.max == 100.0
    assert (s.ci_low, s.ci_high) == (2.0, 9.0)  # ranks 1 and 8 of the sorted values
    assert s.rel_ci_width == pytest.approx(7.0 / 5.5)
    assert s.unstable  # wider than 10% of the median


def test_a_tight_interval_is_stable_and_a_single_value_is_not():
    tight = stats.summarize([1.00, 1.01, 0.99, 1.00, 1.02, 0.98, 1.00, 1.01])
    assert not tight.unstable and tight.ci_low == 0.98 and tight.ci_high == 1.02
    single = stats.summarize([1.0])
    assert single.unstable and single.confidence == 0.0


def test_ratio_of_medians_with_a_reproducible_interval():
    ratio, lo, hi = stats.ratio_ci([2.0, 2.2, 1.8, 2.1], [1.0, 1.1, 0.9, 1.0])
    assert ratio == pytest.approx(2.05 / 1.0)
    assert lo < ratio < hi
    assert (ratio, lo, hi) == stats.ratio_ci([2.0, 2.2, 1.8, 2.1], [1.0, 1.1, 0.9, 1.0])
    assert stats.ratio_ci([2.0], [1.0]) == (2.0, None, None)


def test_drift_flags_steps_that_slow_down_and_ignores_noise():
    assert stats.drift([1.0] * 30 + [1.3] * 30 + [1.5] * 30)["drifting"]
    assert not stats.drift([1.0, 1.02, 0.98] * 30)["drifting"]
    assert stats.drift([1.0] * 30 + [2.0] * 30)["ratio_last_to_first_third"] == 2.0


def test_steady_state_leaves_out_warm_up_and_each_epochs_first_step():
    ms = 1_000_000
    steps = [[100 * ms, 5 * ms, 5 * ms, 5 * ms], [9 * ms, 4 * ms, 4 * ms]]
    assert steady_steps(steps, warmup_steps=2) == pytest.approx([0.005, 0.005, 0.004, 0.004])
    assert steady_steps(steps, warmup_steps=0) == pytest.approx([0.005] * 3 + [0.004] * 2)


def test_timing_record_from_a_fake_clock(compose):
    ms = 1_000_000
    ticks = iter([0, 50 * ms, 60 * ms, 70 * ms, 80 * ms, 90 * ms, 100 * ms, 100 * ms, 130 * ms])
    clock = RunClock(now_ns=lambda: next(ticks))
    clock.epoch_begin()  # 0
    for _ in range(6):  # steps end at 50, 60, ..., 100 ms: a 50 ms first step, then 10 ms each
        clock.step_end()
    clock.validation_begin()  # 100
    clock.epoch_end()  # 130
    spec = build_spec(compose("measure.warmup_steps=1"))
    t = timing_record(clock, spec, batch_size=128)
    assert t.steady_step_s.median == pytest.approx(0.010)
    assert t.steady_steps == 5
    assert t.steady_samples_per_s == pytest.approx(12_800)
    assert t.epoch_s.median == pytest.approx(0.130)
    assert clock.train_times_s() == pytest.approx([0.100])


def test_a_runs_steady_step_takes_its_interval_over_consecutive_batches(compose):
    """Steps that slow steadily from 10 to 12 ms: neighbouring steps are alike, so the steps'
    own order statistics claim about +-1%; the medians of measure.step_batches=10 consecutive
    batches take ranks 1 and 8 of 10 (97.9%), about three times as wide. The point stays the
    median of every step."""
    ms = 1_000_000
    steps = [50 * ms] + [10 * ms + (2 * ms * i) // 199 for i in range(200)]
    ends = list(itertools.accumulate(steps))
    clock = RunClock(now_ns=iter([0, *ends, ends[-1], ends[-1]]).__next__)
    clock.epoch_begin()
    for _ in steps:
        clock.step_end()
    clock.validation_begin()
    clock.epoch_end()
    spec = build_spec(compose("measure.warmup_steps=1", "measure.step_batches=10"))
    step = timing_record(clock, spec, batch_size=128).steady_step_s
    steady = [s / 1e9 for s in steps[1:]]  # the warm-up step (also the epoch's first) left out
    batch_medians = sorted(float(np.median(b)) for b in np.array_split(steady, 10))
    assert step.batches == 10 and step.n == 200
    assert step.median == pytest.approx(float(np.median(steady)))
    assert (step.ci_low, step.ci_high) == pytest.approx((batch_medians[1], batch_medians[8]))
    over_steps = stats.summarize(steady)
    assert step.rel_ci_width > 2.5 * over_steps.rel_ci_width


def test_a_series_interval_holds_its_point_where_the_batches_medians_leave_it_out():
    """15 batches of (1, 100, 100) and 5 of (1, 1, 1): every step's median is 50.5, the
    batches' medians are 100 at every rank from 5 to 14; the interval reaches down to 50.5."""
    values = [1.0, 100.0, 100.0] * 15 + [1.0, 1.0, 1.0] * 5
    s = stats.summarize_series(values, 20)
    assert s.median == 50.5 and (s.ci_low, s.ci_high) == (50.5, 100.0)
    short = stats.summarize_series([1.0, 2.0, 3.0], 20)  # fewer values than batches: one each
    assert short.batches == 3 and (short.ci_low, short.ci_high) == (1.0, 3.0)
    assert "batches" not in stats.summarize([1.0, 2.0]).as_dict()  # other summaries unchanged


def test_a_long_runs_interval_matches_the_normal_approximation():
    # A 20-epoch MLP run records about 9,400 steps; tl_mlp about 60,000.
    n = 60_000
    lo, hi, achieved = stats.median_ci_ranks(n)
    expected_lo = n / 2 - 1.96 * n**0.5 / 2 - 1
    assert abs(lo - expected_lo) <= 2 and hi == n - 1 - lo
    assert 0.95 <= achieved < 0.951


def test_median_interval_agrees_with_the_binomial_definition():
    # Independent oracle: the largest k with 1 - 2 * sum_{i<=k} C(n, i) / 2^n >= 95%, in integers.
    from math import comb

    for n in range(6, 120):
        total, k, tail = 2**n, -1, 0
        while 20 * (total - 2 * (tail + comb(n, k + 1))) >= 19 * total:
            k += 1
            tail += comb(n, k)
        assert stats.median_ci_ranks(n)[:2] == (k, n - 1 - k), n


def test_paired_ratios_get_the_exact_median_interval():
    a = [1.1, 2.2, 3.3, 1.0, 2.0, 3.0, 1.05, 2.1]
    b = [1.0, 2.0, 3.0, 1.0, 2.0, 3.0, 1.00, 2.0]
    s = stats.paired_ratio(a, b)
    assert s.n == 8 and s.median == pytest.approx(1.05)
    assert (s.ci_low, s.ci_high) == pytest.approx((1.0, 1.1))  # ranks 0 and 7 for n = 8
    with pytest.raises(ValueError, match="length"):
        stats.paired_ratio([1.0, 2.0], [1.0])


def test_pairs_from_several_sessions_take_the_session_as_the_unit():
    # Two sessions whose pairs agree within each (0.50 and 0.60 every time): eight pairs each
    # look certain counted as one sample ([0.5, 0.6]), but two sessions know little about a
    # third: a t-interval on two values (one degree of freedom, t = 12.7) around sqrt(0.3).
    ratios = [0.5] * 8 + [0.6] * 8
    s = stats.sessions_ratio(ratios, ["s1"] * 8 + ["s2"] * 8)
    assert s.n == 2 and s.median == pytest.approx(math.sqrt(0.3))
    half = stats.t_quantile(0.975, 1) * abs(math.log(0.6 / 0.5)) / 2
    assert (s.ci_low, s.ci_high) == pytest.approx(
        (math.sqrt(0.3) * math.exp(-half), math.sqrt(0.3) * math.exp(half))
    )
    assert s.ci_low < 0.5 and s.ci_high > 1.0  # wider than the pooled pairs' [0.5, 0.6]
    # Each session counts once however many pairs it holds: its median is its value.
    many = stats.sessions_ratio([0.5] * 30 + [0.6] * 3, ["s1"] * 30 + ["s2"] * 3)
    assert many.median == pytest.approx(math.sqrt(0.3))
    with pytest.raises(ValueError, match="two sessions"):
        stats.sessions_ratio([0.5, 0.6], ["s1", "s1"])
    with pytest.raises(ValueError, match="per session"):
        stats.sessions_ratio([0.5, 0.6], ["s1"])


def test_ratios_of_units_take_a_t_interval_on_their_logs_around_the_geometric_mean():
    # Three rounds' speed-ups 1.2, 1.5, 1.2: the centre is their geometric mean, and the
    # interval t(2) times the logs' standard error either side of it; alike rounds: a point.
    s = stats.units_ratio([1.2, 1.5, 1.2])
    logs = [math.log(x) for x in (1.2, 1.5, 1.2)]
    mean = sum(logs) / 3
    se = math.sqrt(sum((x - mean) ** 2 for x in logs) / 2 / 3)
    half = stats.t_quantile(0.975, 2) * se
    assert s.n == 3 and s.median == pytest.approx(math.exp(mean))
    assert (s.ci_low, s.ci_high) == pytest.approx((math.exp(mean - half), math.exp(mean + half)))
    alike = stats.units_ratio([2.0, 2.0])
    assert (alike.median, alike.ci_low, alike.ci_high) == pytest.approx((2.0, 2.0, 2.0))
    with pytest.raises(ValueError, match="at least two"):
        stats.units_ratio([2.0])


def test_two_separate_groups_of_runs_are_flagged_and_one_group_is_not():
    two = [1.74, 1.76, 1.75, 1.80, 1.78, 2.30, 2.28, 2.35, 2.31, 2.33]
    verdict = stats.modes(two)
    assert verdict["multimodal"] and verdict["p_value"] < 0.01
    assert verdict["low_mode"] == {"n": 5, "median": 1.76}
    assert verdict["high_mode"]["n"] == 5 and 1.8 < verdict["split"] < 2.3
    one = [1.74, 1.76, 1.75, 1.80, 1.78, 1.77, 1.79, 1.73, 1.81, 1.76]
    assert not stats.modes(one)["multimodal"]
    assert stats.modes([1.0, 2.0, 3.0])["gap_statistic"] is None  # too few to split


def test_the_gap_test_rarely_flags_a_normal_sample():
    import numpy as np

    rng = np.random.default_rng(7)
    flagged = [stats.modes(rng.normal(1.0, 0.05, 12))["multimodal"] for _ in range(60)]
    assert sum(flagged) <= 9  # alpha 5%: 3 expected; 9 of 60 is beyond chance (p < 0.01)
