"""Resident worker pairs (decision `pairing: resident`): one worker pair, many blocks, one unit.

A fresh-process pair (`pairing: turns`) pays two start-ups (imports of 1-7 s, data, the first
compiled step) for one figure per run. Here each half is still the real worker a lone run would
be (its own process pinned to the same cores, its thread budget set before its framework loads
and read back, its own record), but it lives for `resident_blocks` blocks: after one warm-up
turn of `warmup_ticks` ticks each (first step, tracing, cold caches: never compared), the two
take turns of `turn_ticks` ticks in ABBA order (twinbench/launch/turns.py), and each worker times
every block itself, waits left out (frameworks/turns.py `done <wall> <cpu> <ticks>`). Round r's
two blocks ran seconds apart on the same cores, so their log ratio sees the same machine.

Why the worker pair, not the block, is the unit: a process can sit in a fast or slow state for
its whole life (where its pages and threads landed; on 2026-12-01 one 2-core A/A pair in six sat
26% apart), so the blocks of one worker pair share that state and are not independent
observations. A confidence sequence over blocks would shrink with every block while the state
stays, and its interval would lie. So each worker pair gives ONE value, the mean log ratio of its
block rounds, and the next unit comes from a fresh pair of workers: the restarts put the process
state into the spread the sequence sees (twinbench/sequential.py). `python -m
twinbench.launch.resident_power` simulates this design through this code (false decisions
under A/A, power at 5% and 10%).

What it cannot see: start-up, import and warm-up, which each worker pays once outside the
blocks compared. The fresh-process pairings record them in every run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twinbench.launch.turns import Block
from twinbench.sequential import Design

MEASURES = ("wall", "cpu")


def size_job(body: dict[str, Any], design: Design) -> dict[str, Any]:
    """A job's config trimmed to one worker's life in a resident pair: one epoch of the warm-up
    turn and `resident_blocks` blocks, in training steps (a Keras tick is steps_per_execution
    steps). The data set may hold fewer steps: the pair then has fewer rounds, and says so."""
    ticks = design.warmup_ticks + design.resident_blocks * design.turn_ticks
    return {**body, "epochs": 1, "max_steps": ticks * steps_per_tick(body)}


def floor_length(design: Design, epochs: Any, max_steps: Any, per_tick: int = 1) -> tuple[Any, Any]:
    """The (epochs, max_steps) a noise floor is cached under (twinbench/measure/noise.py): a
    resident worker's own length, whatever the sweep's runs say, so the floor `twinbench
    calibrate --pairing resident` caches is the one a resident sweep reads; others unchanged."""
    if design.pairing != "resident":
        return epochs, max_steps
    sized = size_job({"backend": {"steps_per_execution": per_tick}}, design)
    return sized["epochs"], sized["max_steps"]


def steps_per_tick(body: dict[str, Any]) -> int:
    """Training steps between two of a job's clock ticks (Keras' steps_per_execution)."""
    return int((body.get("backend") or {}).get("steps_per_execution") or 1)


@dataclass(frozen=True)
class Unit:
    """One worker pair's contribution: its ratio A/B per measure and how many rounds made it."""

    ratios: dict[str, float]  # exp(mean log ratio of the rounds), per measure
    rounds: int
    # Each side's seconds per training step over the same rounds, per measure: the geometric
    # mean, so that a_step_s / b_step_s is the unit's ratio (the speed tables print both sides).
    a_step_s: dict[str, float] = field(default_factory=dict)
    b_step_s: dict[str, float] = field(default_factory=dict)


def unit_of(
    blocks_a: Sequence[Block],
    blocks_b: Sequence[Block],
    design: Design,
    per_tick: tuple[int, int] = (1, 1),
) -> Unit | None:
    """The unit two workers' blocks make: round r pairs A's r-th compared block with B's (the
    two ran back to back, ABBA), each as seconds per training step; the unit is the mean of the
    rounds' log ratios, over at most `resident_blocks` rounds where both blocks are whole.
    None when no round is whole (a worker died before its first compared block)."""
    a = [b for b in blocks_a if not b.warmup]
    b = [b for b in blocks_b if not b.warmup]
    logs: dict[str, list[tuple[float, float]]] = {m: [] for m in MEASURES}
    for x, y in list(zip(a, b, strict=False))[: design.resident_blocks]:
        if x.ticks != design.turn_ticks or y.ticks != design.turn_ticks:
            continue  # a partial block (the data set's last steps) times fewer steps
        for m in MEASURES:
            ax = (x.wall_s if m == "wall" else x.cpu_s) / (x.ticks * per_tick[0])
            by = (y.wall_s if m == "wall" else y.cpu_s) / (y.ticks * per_tick[1])
            if ax > 0 and by > 0:
                logs[m].append((math.log(ax), math.log(by)))
    if not logs["wall"]:
        return None

    def geometric_mean(values: list[float]) -> float:
        return math.exp(sum(values) / len(values))

    kept = {m: v for m, v in logs.items() if v}
    return Unit(
        ratios={m: geometric_mean([la - lb for la, lb in v]) for m, v in kept.items()},
        rounds=len(logs["wall"]),
        a_step_s={m: geometric_mean([la for la, _ in v]) for m, v in kept.items()},
        b_step_s={m: geometric_mean([lb for _, lb in v]) for m, v in kept.items()},
    )


@dataclass
class ResidentPair:
    """What one worker pair gave back: each half's records and blocks, in the jobs' order."""

    records: list[list[dict[str, Any]]]
    blocks: list[list[Block]]
    per_tick: tuple[int, int]


def conductor_for(names: tuple[str, str], design: Design):
    """The turns of one resident worker pair: a warm-up turn each, then blocks of turn_ticks,
    both workers starting up at once (no start-up is compared; on two cores the two imports
    run side by side). The speed tables' resident pairs use it too (benchmarks/turn_pairs.py)."""
    from twinbench.launch import turns

    return turns.Conductor(
        names,
        design.turn_ticks,
        design.turn_gap_s,
        warmup_ticks=design.warmup_ticks,
        start_together=True,
    )


def run_pair(jobs: list[tuple[dict[str, Any], Path]], design: Design) -> ResidentPair:
    """Run one resident worker pair of the two (config, directory) jobs: both workers alive on
    the same cores, a warm-up turn each, then `resident_blocks` rounds in turns, then both
    exit (their records written one after the other, as in a fresh pair)."""
    from twinbench.launch import runner as launch
    from twinbench.launch import together

    sized = [(size_job(body, design), folder) for body, folder in jobs]
    names = tuple(str((body.get("backend") or {}).get("name")) for body, _ in sized)
    conductor = conductor_for(names, design)  # type: ignore[arg-type]
    halves = [lambda b=body, d=folder: launch.run_job(b, d) for body, folder in sized]
    found = together.run_halves(
        halves, names, design.turn_ticks, design.turn_gap_s, together.lock_key(sized[0][0]),
        conductor=conductor,
    )  # fmt: skip
    per_tick = (steps_per_tick(sized[0][0]), steps_per_tick(sized[1][0]))
    records = [f if f is not None else [] for f in found]
    return ResidentPair(records, conductor.blocks, per_tick)


def unit_from(measured: ResidentPair, design: Design, flip: bool = False) -> Unit | None:
    """A worker pair's unit as A/B (`flip`: its jobs ran B's half first), or None: a half with
    no record or a failed one drops the whole pair (a worker that died mid-block leaves rounds
    its partner trained alone), as does a pair with no whole round."""
    whole = all(
        records and all(r.get("status") == "ok" for r in records) for records in measured.records
    )
    if not whole:
        return None
    blocks, per_tick = measured.blocks, measured.per_tick
    if flip:
        blocks, per_tick = blocks[::-1], (per_tick[1], per_tick[0])
    return unit_of(blocks[0], blocks[1], design, per_tick)
