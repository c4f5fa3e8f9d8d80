"""Where a run's training time went: a budget whose parts add up to the measured time.

The training time twinbench reports (the 2017 figure) is the sum of the epochs' wall times,
validation included. Every clock tick of a run falls into exactly one part:

- first_step: the run's first step, from the first epoch's start (graph tracing, XLA or
  torch.compile compilation, cold caches, thread-pool start-up): the start-up share;
- steady: steady steps x the steady median step time (the throughput the steady-state verdict
  compares);
- steady_spread: what the steady steps took beyond that (stragglers, noise; negative when
  the distribution is skewed the other way);
- warmup: the other steps left out of the steady state (the rest of the warm-up window and
  every later epoch's first step, which also starts the epoch's data iterator);
- validation: from validation start to epoch end, every epoch;
- remainder: between an epoch's last step and its validation (callbacks, epoch bookkeeping).

The parts are computed from the same timestamps as the epoch times, each one measured, none
estimated as a difference, so their sum checks the bookkeeping: `unaccounted_s` must stay
near zero (the tests hold it under 2% of the training time).
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

PARTS = ("first_step", "warmup", "steady", "steady_spread", "remainder", "validation")
LABELS = {
    "first_step": "first step (start-up)",
    "warmup": "warm-up and epoch-first steps",
    "steady": "steady steps x median",
    "steady_spread": "steady steps beyond the median",
    "remainder": "epoch remainder (callbacks, iterator)",
    "validation": "validation",
}


def split_ticks(
    tick_ns: Sequence[Sequence[int]], warmup_ticks: int
) -> tuple[int, list[int], list[int]]:
    """(first tick, other non-steady ticks, steady ticks), by twinbench.worker's steady rule:
    the run's first `warmup_ticks` ticks and every epoch's first tick are not steady; a run too
    short to have any steady tick counts every tick but the first as steady."""
    first, warm, steady, seen = None, [], [], 0
    for epoch in tick_ns:
        for i, ns in enumerate(epoch):
            if first is None:
                first = ns
            elif seen >= warmup_ticks and i > 0:
                steady.append(ns)
            else:
                warm.append(ns)
            seen += 1
    if first is None:
        raise ValueError("a budget needs at least one timed step")
    if not steady:  # the worker's fallback for very short runs
        steady, warm = warm, []
    return first, warm, steady


def compute(
    tick_ns: Sequence[Sequence[int]],
    epoch_start_ns: Sequence[int],
    val_start_ns: Sequence[int],
    epoch_end_ns: Sequence[int],
    warmup_ticks: int,
    steps_per_tick: int,
    steady_median_s: float | None,
) -> dict[str, Any]:
    """The budget of one run, in seconds and as shares of its training time.

    `tick_ns` holds every tick's duration per epoch (RunClock.step_times_ns: the first tick of
    an epoch counts from the epoch's start); `steady_median_s` is the median per step.
    """
    first, warm, steady = split_ticks(tick_ns, warmup_ticks)
    steady_steps = len(steady) * steps_per_tick
    steady_s = steady_steps * steady_median_s if steady_median_s is not None else 0.0
    with_val = len(val_start_ns) == len(epoch_start_ns)
    validation_ns = remainder_ns = 0
    for e, (start, end) in enumerate(zip(epoch_start_ns, epoch_end_ns, strict=False)):
        last_step = start + sum(tick_ns[e])
        train_end = val_start_ns[e] if with_val else end
        remainder_ns += train_end - last_step
        validation_ns += end - train_end
    parts = {
        "first_step": first / 1e9,
        "warmup": sum(warm) / 1e9,
        "steady": steady_s,
        "steady_spread": sum(steady) / 1e9 - steady_s,
        "remainder": remainder_ns / 1e9,
        "validation": validation_ns / 1e9,
    }
    total = math.fsum((e - s) / 1e9 for s, e in zip(epoch_start_ns, epoch_end_ns, strict=False))
    accounted = math.fsum(parts.values())
    return {
        "train_time_s": total,
        "parts_s": parts,
        "shares": {k: (v / total if total > 0 else math.nan) for k, v in parts.items()},
        "steady_steps": steady_steps,
        "steady_median_s": steady_median_s,
        "unaccounted_s": total - accounted,
    }


def from_clock(clock, warmup_steps: int, steady_median_s: float | None) -> dict[str, Any]:
    """The budget of a finished run from its RunClock (frameworks.timing)."""
    per_tick = clock.steps_per_tick
    return compute(
        clock.step_times_ns(),
        clock.epoch_start_ns,
        clock.val_start_ns,
        clock.epoch_end_ns,
        warmup_ticks=-(-warmup_steps // per_tick),
        steps_per_tick=per_tick,
        steady_median_s=steady_median_s,
    )
