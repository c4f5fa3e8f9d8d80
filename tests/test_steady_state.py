"""A run too short for its warm-up records no steady figure, and says so (issue 45): `run.py
backend=torch model=mlp cpus=1 epochs=1 max_steps=3` recorded "steady step 14.20 ms (2 steps)"
beside warmup_steps=10, taken from the warm-up itself. No framework: a fake clock."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from twinbench.config.spec import build_spec
from twinbench.worker import assemble

T = ("backend=torch", "model=mlp", "cpus=1", "epochs=1", "max_steps=3")


def _clock(per_epoch: list[list[int]]) -> SimpleNamespace:
    return SimpleNamespace(
        steps_per_tick=1,
        step_times_ns=lambda: per_epoch,
        epoch_times_s=lambda: [sum(e) / 1e9 for e in per_epoch],
    )


def test_a_run_inside_its_warm_up_records_no_steady_figure_and_flags_it(compose):
    spec = build_spec(compose(*T))  # measure.warmup_steps: the default, 10
    timing = assemble.timing_record(_clock([[9_000_000, 14_000_000, 14_400_000]]), spec, 128)
    assert timing.steady_step_s is None and timing.steady_samples_per_s is None
    assert timing.steady_steps == 0 and timing.warmup_steps == 10
    (flag,) = assemble.run_flags(spec, timing)
    assert flag.startswith("no steady state: every step of the run lies in its warm-up")
    assert "max_steps=11 at epochs=1 would leave one" in flag


def test_a_run_past_its_warm_up_keeps_only_the_steps_after_it(compose):
    spec = build_spec(compose(*T, "max_steps=12"))
    steps = [5_000_000] * 10 + [1_000_000, 2_000_000]
    timing = assemble.timing_record(_clock([steps]), spec, 128)
    assert timing.steady_steps == 2 and timing.steady_step_s.median == 0.0015
    assert assemble.run_flags(spec, timing) == []


def test_the_shortest_run_with_a_steady_step():
    assert assemble.shortest_steady_run(epochs=1, warmup=10) == 11
    assert assemble.shortest_steady_run(epochs=2, warmup=10) == 6
    assert assemble.shortest_steady_run(epochs=1, warmup=0) == 2


def test_a_run_whose_data_ends_first_is_told_more_epochs_not_a_larger_max_steps(compose):
    """max_steps=50 on a data set of 3 steps per epoch: a larger max_steps changes nothing."""
    spec = build_spec(compose(*T, "epochs=2", "max_steps=50"))
    timing = assemble.timing_record(_clock([[1_000_000] * 3] * 2), spec, 128)
    (flag,) = assemble.run_flags(spec, timing, steps_per_epoch=3)
    assert "the data holds 3 steps per epoch, so epochs=4 would leave one" in flag
    assert "max_steps=" not in flag
    assert assemble.shortest_steady_epochs(3, warmup=10) == 4


def test_one_step_per_epoch_is_never_steady_and_the_flag_says_what_would_help(compose):
    """model.batch_size above the training set: one step per epoch, always the epoch's first."""
    spec = build_spec(compose(*T, "epochs=3", "model.batch_size=100000", "measure.warmup_steps=0"))
    timing = assemble.timing_record(_clock([[1_000_000]] * 3), spec, 60_000)
    assert timing.steady_step_s is None
    (flag,) = assemble.run_flags(spec, timing, steps_per_epoch=1)
    assert "an epoch's first is never steady" in flag and "model.batch_size" in flag
    assert "max_steps=" not in flag and "epochs=" not in flag


def test_the_steady_throughput_counts_the_samples_a_step_holds(compose):
    """A batch larger than the data trains the whole data set per step (issue 28): the steady
    throughput is counted from what a step holds, which the worker passes (samples_per_step)."""
    assert assemble.samples_per_step(100_000, 60_000) == 60_000
    assert assemble.samples_per_step(128, 60_000) == 128
    spec = build_spec(compose(*T, "measure.warmup_steps=1"))
    timing = assemble.timing_record(_clock([[9_000_000, 2_000_000, 2_000_000]]), spec, 60_000)
    assert timing.steady_samples_per_s * timing.steady_step_s.median == pytest.approx(60_000)
