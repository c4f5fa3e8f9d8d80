"""Adaptive repeats: measure until the interval of the median is narrow enough, or a budget ends."""

from __future__ import annotations

import itertools

import pytest

from twinbench import adaptive
from twinbench.config import ConfigError, build_spec


def record(step_s: float, status: str = "ok") -> dict:
    return {"status": status, "timing": {"steady_step_s": {"median": step_s}}}


def fake_runs(values):
    values = iter(values)
    return lambda i: record(next(values))


def plan(**kw) -> adaptive.Plan:
    return adaptive.Plan(**{"target_rel_width": 0.05, "min_repeats": 6, "max_repeats": 20,
                            "max_seconds": None, **kw})  # fmt: skip


def test_stops_as_soon_as_the_interval_reaches_the_target_but_never_before_six_runs():
    records, info = adaptive.measure_until_stable(plan(), fake_runs([1.0] * 30), say=lambda s: 0)
    assert len(records) == 6 and info["stopped_by"] == "target"
    assert info["reached_rel_width"] == 0.0


def test_noisy_runs_go_on_until_the_repeat_budget_and_say_so():
    noisy = itertools.cycle([1.0, 1.3, 0.8, 1.2, 0.9])
    records, info = adaptive.measure_until_stable(plan(), fake_runs(noisy), say=lambda s: 0)
    assert len(records) == 20 and info["stopped_by"] == "max_repeats"
    assert info["reached_rel_width"] > 0.05


def test_a_time_budget_ends_it_first():
    clock = itertools.count(0.0, 10.0)  # every look at the clock: 10 s later
    noisy = itertools.cycle([1.0, 1.3, 0.8])
    records, info = adaptive.measure_until_stable(
        plan(max_seconds=35.0), fake_runs(noisy), now=lambda: next(clock), say=lambda s: 0
    )
    assert info["stopped_by"] == "max_seconds" and len(records) == 4


def test_the_interval_narrows_with_more_runs_of_the_same_spread():
    # Spread of 2% either side: six runs' [min, max] is 4% wide; the interval needs more runs to
    # leave the extremes out, so a 3% target takes more than six.
    values = itertools.cycle([1.00, 1.02, 0.98, 1.01, 0.99, 1.00, 1.005, 0.995])
    records, info = adaptive.measure_until_stable(
        plan(target_rel_width=0.03), fake_runs(values), say=lambda s: 0
    )
    assert info["stopped_by"] == "target" and len(records) > 6


def test_failed_runs_do_not_count_towards_the_minimum():
    runs = iter([record(1.0, "failed")] * 2 + [record(1.0)] * 10)
    records, info = adaptive.measure_until_stable(plan(), lambda i: next(runs), say=lambda s: 0)
    assert len(records) == 8 and info["stopped_by"] == "target"


def test_plan_comes_from_measure_keys_and_bad_values_are_refused(compose):
    assert adaptive.plan(build_spec(compose())) is None  # default: fixed repeats
    p = adaptive.plan(build_spec(compose("measure.target_rel_width=0.02", "repeats=8")))
    assert p == adaptive.Plan(0.02, 8, 30, None)
    with pytest.raises(ConfigError, match="target_rel_width"):
        adaptive.plan(build_spec(compose("measure.target_rel_width=2")))
    with pytest.raises(ConfigError, match="max_repeats"):
        adaptive.plan(build_spec(compose("measure.target_rel_width=0.02", "measure.max_repeats=3")))
    with pytest.raises(ConfigError, match="max_seconds"):
        adaptive.plan(build_spec(compose("measure.target_rel_width=0.02", "measure.max_seconds=0")))
