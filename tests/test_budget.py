"""The time budget: every tick of a run lands in exactly one part, and the parts add up."""

from __future__ import annotations

import math

import pytest

from frameworks.timing import RunClock
from twinbench.result import budget

TOLERANCE = 0.02  # the parts must sum to the measured training time within 2%


def _fake_run(per_tick: int = 1, validated: tuple[int, ...] = (0, 1)) -> RunClock:
    """Two epochs of 5 ticks: a 900 ms first step, 10 ms steps, a 3 ms gap, 40 ms validation
    (in the `validated` epochs)."""
    now = [0]
    clock = RunClock(now_ns=lambda: now[0], steps_per_tick=per_tick)
    ms = 1_000_000

    def advance(d):
        now[0] += d

    for epoch in range(2):
        clock.epoch_begin()
        for i in range(5):
            advance((900 if (epoch, i) == (0, 0) else 20 if i == 0 else 10) * ms)
            clock.step_end()
        advance(3 * ms)
        if epoch in validated:
            clock.validation_begin()
            advance(40 * ms)
        clock.epoch_end()
    return clock


def test_parts_of_a_fake_run_are_what_each_tick_measured():
    b = budget.from_clock(_fake_run(), warmup_steps=2, steady_median_s=0.010)
    parts = b["parts_s"]
    assert parts["first_step"] == pytest.approx(0.900)
    # warm-up window: ticks 2 of epoch 0; epoch 1's first tick (20 ms): both left out of steady
    assert parts["warmup"] == pytest.approx(0.010 + 0.020)
    assert b["steady_steps"] == 3 + 4
    assert parts["steady"] == pytest.approx(7 * 0.010)
    assert parts["steady_spread"] == pytest.approx(0.0, abs=1e-12)
    assert parts["remainder"] == pytest.approx(2 * 0.003)
    assert parts["validation"] == pytest.approx(2 * 0.040)
    assert b["train_time_s"] == pytest.approx(sum(_fake_run().epoch_times_s()))
    assert b["unaccounted_s"] == pytest.approx(0.0, abs=1e-9)
    assert b["shares"]["first_step"] == pytest.approx(0.900 / b["train_time_s"])


def test_epochs_between_validations_have_no_validation_part():
    # validate_every (tl_mlp): epoch 0 validates, epoch 1 does not
    clock = _fake_run(validated=(0,))
    b = budget.from_clock(clock, warmup_steps=2, steady_median_s=0.010)
    assert b["parts_s"]["validation"] == pytest.approx(0.040)
    assert b["parts_s"]["remainder"] == pytest.approx(2 * 0.003)
    assert b["unaccounted_s"] == pytest.approx(0.0, abs=1e-9)
    assert clock.train_times_s() == pytest.approx([0.943, 0.063])  # validation left out
    assert clock.epoch_times_s() == pytest.approx([0.983, 0.063])


def test_steady_part_uses_the_median_per_step_when_a_tick_spans_several_steps():
    # Keras steps_per_execution=4: one 10 ms tick is four 2.5 ms steps.
    b = budget.from_clock(_fake_run(per_tick=4), warmup_steps=8, steady_median_s=0.0025)
    assert b["steady_steps"] == 7 * 4
    assert b["parts_s"]["steady"] == pytest.approx(0.070)
    assert b["unaccounted_s"] == pytest.approx(0.0, abs=1e-9)


def test_a_run_too_short_for_a_steady_state_counts_all_but_the_first_step():
    first, warm, steady = budget.split_ticks([[5, 1, 1]], warmup_ticks=10)
    assert (first, warm, steady) == (5, [], [1, 1])


def test_real_runs_budgets_sum_to_the_training_time(tiny_sweep):
    _, records = tiny_sweep
    assert {(r["backend"], r["model"]) for r in records} == {
        (b, m) for b in ("torch", "tensorflow") for m in ("mlp", "cnn")
    }
    for r in records:
        b = r["budget"]
        train_time = math.fsum(r["epoch_times_s"])
        parts = math.fsum(b["parts_s"].values())
        assert abs(parts - train_time) <= TOLERANCE * train_time, (r["backend"], r["model"], b)
        assert b["steady_steps"] == r["timing"]["steady_steps"]
        assert all(b["parts_s"][k] > 0 for k in ("first_step", "steady", "validation")), b
        assert set(b["parts_s"]) == set(budget.PARTS)


def test_the_sweep_summary_opens_with_the_verdict(tiny_sweep):
    proc, _ = tiny_sweep
    out = proc.stdout
    assert "verdict (default settings of each backend):" in out
    assert out.index("verdict (default") < out.index("report: ")
    # capped runs (max_steps): the steady-state step time leads, and the line says so
    assert "mlp cpu1:" in out and "max_steps=8" in out
