"""Adaptive repeats: measure until the interval of the median is narrow enough, or a budget ends."""

from __future__ import annotations

import itertools
import json

import pytest

from twinbench.config.spec import ConfigError, build_spec
from twinbench.launch import adaptive


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


def test_repeats_auto_is_what_asks_for_it_with_the_width_and_budgets_from_measure(compose):
    assert adaptive.plan(build_spec(compose())) is None  # default: fixed repeats
    # A target width alone does not switch it on: repeats=auto does.
    assert adaptive.plan(build_spec(compose("measure.target_rel_width=0.05"))) is None
    assert adaptive.plan(build_spec(compose("repeats=auto"))) == adaptive.Plan(0.02, 6, 30, None)
    p = adaptive.plan(build_spec(compose("repeats=auto", "measure.max_seconds=60")))
    assert p.max_seconds == 60.0
    with pytest.raises(ConfigError, match="target_rel_width"):
        adaptive.plan(build_spec(compose("repeats=auto", "measure.target_rel_width=2")))
    with pytest.raises(ConfigError, match="max_repeats"):
        adaptive.plan(build_spec(compose("repeats=auto", "measure.max_repeats=3")))
    with pytest.raises(ConfigError, match="max_seconds"):
        adaptive.plan(build_spec(compose("repeats=auto", "measure.max_seconds=0")))


def test_repeats_must_be_a_whole_number_or_auto(compose):
    with pytest.raises(ConfigError, match="whole number >= 1 or auto, got 'abc'"):
        build_spec(compose("repeats=abc"))
    with pytest.raises(ConfigError, match="or auto"):
        build_spec(compose("repeats=0"))


def test_the_outcome_line_says_target_reached_or_budget_exhausted_and_at_what_width():
    _, reached = adaptive.measure_until_stable(plan(), fake_runs([1.0] * 30), say=lambda s: 0)
    assert reached["outcome"].startswith("reached width 0.0% of the median (target 5.0%)")
    noisy = itertools.cycle([1.0, 1.3, 0.8, 1.2, 0.9])
    _, spent = adaptive.measure_until_stable(plan(), fake_runs(noisy), say=lambda s: 0)
    assert spent["outcome"].startswith("budget exhausted (max_repeats=20) at width ")
    assert f"{spent['reached_rel_width']:.1%}" in spent["outcome"]


def test_run_job_with_repeats_auto_stops_at_the_target_and_writes_the_outcome(
    compose, tmp_path, monkeypatch
):
    """The wiring from `repeats=auto` to summary.json, with the worker replaced by a fake whose
    repeats agree to 0.1% (the real worker is exercised by the next test)."""
    from twinbench.launch import runner as launch

    steps = itertools.cycle([1.000, 1.001, 0.999])

    def fake_measure(spec, config, run_dir):
        return {"status": "ok", "run_key": config["run_key"], "repeat": config["repeat"],
                "timing": {"steady_step_s": {"median": next(steps)}, "epoch_s": {"median": 1.0},
                           "steady_samples_per_s": 100.0}}  # fmt: skip

    monkeypatch.setattr(launch, "measure_once", fake_measure)
    config = compose("repeats=auto", "cpus=1", f"measure.lock_file={tmp_path}/lock")
    records = launch.run_job(config, tmp_path)
    assert len(records) == 6 and [r["repeat"] for r in records] == list(range(6))
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["adaptive"]["stopped_by"] == "target"
    assert summary["adaptive"]["outcome"].startswith("reached width 0.2% of the median")


def test_repeats_auto_from_the_command_line_stops_when_its_time_budget_is_spent(tmp_path):
    """One real fresh worker: a budget of 1 ms is spent by the first repeat, and the run says so
    rather than presenting one repeat as a converged result."""
    from .conftest import run_cli

    proc = run_cli("backend=torch", "cpus=1", "epochs=1", "max_steps=3", "repeats=auto",
                   "measure.warmup_steps=1",  # 2 steady steps of 3 (the default leaves none)
                   "measure.peak_probe=false", "measure.max_seconds=0.001",
                   f"hydra.run.dir={tmp_path}")  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["repeats"] == 1 and summary["adaptive"]["stopped_by"] == "max_seconds"
    assert "budget exhausted (max_seconds=0.001)" in proc.stdout
    record = json.loads((tmp_path / "repeat-0" / "result.json").read_text())
    assert record["repeats"] == "auto"


def test_a_run_too_short_for_its_warm_up_stops_after_its_first_repeat_and_says_why():
    """No steady figure (issue 45): every repeat is the same run, so none would ever have one,
    and repeats=auto once ran on to max_repeats for nothing."""
    runs = itertools.repeat({"status": "ok", "timing": {"steady_step_s": None}})
    records, info = adaptive.measure_until_stable(plan(), lambda i: next(runs), say=lambda s: 0)
    assert len(records) == 1 and info["stopped_by"] == "no_steady_state"
    assert info["reached_rel_width"] is None
    assert info["outcome"].startswith("no steady figure after 1 repeat(s): the run is too short")
    # a failed first repeat says nothing about the run's length: it goes on
    runs = iter([record(1.0, "failed")] + [record(1.0)] * 10)
    records, info = adaptive.measure_until_stable(plan(), lambda i: next(runs), say=lambda s: 0)
    assert info["stopped_by"] == "target"
