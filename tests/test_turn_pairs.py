"""The speed table's pairs in turns (benchmarks/turn_pairs.py): a real twinbench run and a real
run of the bare loop, alive at once on one core, hand the turn to each other every few steps,
and each side's epochs leave its waits out."""

from __future__ import annotations

import math
import statistics

import pytest

from benchmarks import overhead, pairs, turn_pairs
from twinbench.sequential import Design

STEPS, EPOCHS, TICKS = 30, 2, 5


@pytest.fixture(scope="module")
def pair():
    ours, theirs = turn_pairs.measure_pair(
        pairs.twinbench_overrides("torch", "mlp", 1, EPOCHS, STEPS),
        overhead.bare_cmd("torch", "mlp", 1, STEPS, EPOCHS),
        validation=False,
        twinbench_first=False,  # the bare loop starts up first; twinbench once it waits
        ticks=TICKS,
        gap_s=0.02,
    )
    return ours, theirs


def test_both_sides_take_turns_of_a_few_steps_to_the_end(pair):
    ours, theirs = pair
    # 60 steps each in blocks of 5: about 12 turns each (the last block may be cut short by
    # the end of training), never one turn for the whole run.
    for side in (ours, theirs):
        assert side.turns is not None
        assert STEPS * EPOCHS // TICKS - 1 <= side.turns["turns"] <= STEPS * EPOCHS // TICKS + 1
        assert side.turns["paused_s"] > 0  # it waited while the other trained


def test_each_side_times_its_epochs_without_the_waits(pair):
    """The same network and steps on both sides (twinbench is within about 10% of its bare loop
    here): an epoch that counted its waits would hold the partner's training too, and the ratio
    would be near 0.5 or 2."""
    ours, theirs = pair
    for side in pair:
        assert len(side.epochs) == EPOCHS and side.epoch_s == pytest.approx(side.epochs[1])
        assert side.cpu_s > 0
    assert 0.65 < ours.epoch_s / theirs.epoch_s < 1.5


# A resident worker pair (benchmarks/turn_pairs.py measure_resident_pair), as small as it gets:
# a warm-up turn of 3 steps and 4 compared blocks of 5 a side.
RESIDENT = Design(pairing="resident", turn_ticks=5, resident_blocks=4, warmup_ticks=3)


@pytest.fixture(scope="module")
def resident_pair():
    return turn_pairs.measure_resident_pair(
        pairs.twinbench_overrides("torch", "mlp", 1, 1, None),
        lambda steps: overhead.bare_cmd("torch", "mlp", 1, steps, 1),
        twinbench_first=True,
        design=RESIDENT,
    )


def test_a_resident_pair_compares_every_block_after_the_warm_up_per_training_step(resident_pair):
    """Both sides are sized to the warm-up and the 4 blocks and time each block without the
    waits: per step, the same network on both sides lands within a factor of 1.5 (a block that
    counted the partner's turn would read about twice as slow), and each side's figure is the
    geometric mean of its blocks, so the two divide to the unit's ratio."""
    ours, theirs = resident_pair
    for side in resident_pair:
        assert len(side.epochs) == RESIDENT.resident_blocks  # the warm-up block left out
        assert side.epoch_s == pytest.approx(math.exp(statistics.fmean(map(math.log, side.epochs))))
        assert side.cpu_s > 0 and side.turns is not None
        # its warm-up turn, its blocks, and the release after its last step (no more)
        assert side.turns["turns"] == RESIDENT.resident_blocks + 2
    assert 0.65 < ours.epoch_s / theirs.epoch_s < 1.5
