"""Where a resident unit's spread comes from: the processes' lifelong states, or block noise.

    python -m benchmarks.diagnostics.resident_components SWEEP_DIR... [--a torch --b tensorflow]

A resident unit (twinbench/launch/resident.py) is the mean of K rounds' log ratios, so its
variance across units is the two processes' state (shared by every round of the unit) plus the
rounds' own noise over K. Reading each worker's per-step times (steps.json) of deciding sweeps
run with `pairing: resident`, this splits the first from the second for every series (core
count): the rounds' variance within a unit, averaged over units, divided by K, is the block
noise's share; what the units' variance holds beyond it is the processes' state. Where the
state dominates, longer lives (a larger K) buy nothing: only more units narrow the interval.

A second table asks how much of the state is the machine's, not the processes': a unit's level
(the mean log step time of both sides over its blocks) moves with the machine's speed state,
which both workers of a pair share, and where one side's step is more sensitive to that state
than the other's, the unit's ratio moves with its level. It gives the slope of the units' log
ratio on their level (0: the ratio does not depend on how fast the machine is just then) and the
units' spread before and after that dependence is taken out, within each sweep. Since a unit's
level holds each side's own noise, unequal noise alone would tilt that slope; so it also gives
the slope of A's level on B's alone (1: both sides move alike with the shared state; above 1: A
moves more, B's own noise only pulling the figure towards 0) and their correlation.

Each worker pair is the repeat folder of the same number under A's and B's configuration
folders; its first `--warmup` steps are its warm-up turn, then K = `--blocks` blocks of
`--ticks` steps (conf/decision/default.yaml's values unless given). numpy only; it starts
nothing.
"""

from __future__ import annotations

import argparse
import json
import math
from pathlib import Path
from typing import Any

import numpy as np

from twinbench import sequential


def rounds_and_level(
    a_steps: list[float], b_steps: list[float], d: sequential.Design
) -> tuple[np.ndarray, float] | None:
    """A worker pair's rounds, log(A's block / B's block) for each of its K whole blocks (its
    warm-up turn left out), and its level, the mean over those blocks of the two sides' mean log
    block time. None where a worker trained fewer steps than its design: a pair the sweep
    dropped."""
    need = d.warmup_ticks + d.resident_blocks * d.turn_ticks
    if len(a_steps) < need or len(b_steps) < need:
        return None
    shape = (d.resident_blocks, d.turn_ticks)
    a = np.log(np.asarray(a_steps[d.warmup_ticks : need], float).reshape(shape).sum(axis=1))
    b = np.log(np.asarray(b_steps[d.warmup_ticks : need], float).reshape(shape).sum(axis=1))
    return a - b, float(np.mean((a + b) / 2))


def level_dependence(units: list[np.ndarray], levels: list[float]) -> dict[str, float]:
    """How the units' log ratio moves with their level: the least-squares `slope`, the units'
    spread `unit_sd`, and `after_level_sd`, their spread about that line (log scale)."""
    if len(units) != len(levels) or len(units) < 3:
        raise ValueError("need a level for each of at least 3 worker pairs")
    y = np.array([u.mean() for u in units])
    x = np.asarray(levels, float) - np.mean(levels)
    slope = float(np.dot(x, y - y.mean()) / np.dot(x, x)) if np.dot(x, x) > 0 else 0.0
    residual = y - y.mean() - slope * x
    # Each side's own level: the pair's level plus or minus half its mean log ratio. Regressed
    # on B's level alone, A's slope is free of the part of the first slope that unequal noise
    # of the two sides would make by itself (the level holds each side's own noise): above 1,
    # A's step moves more with the state both share (B's own noise only pulls it towards 0).
    a_level = np.asarray(levels, float) + y / 2
    b_level = np.asarray(levels, float) - y / 2
    b_x = b_level - b_level.mean()
    still = float(np.dot(b_x, b_x)) < 1e-12 * len(y)  # B's level does not move: no slope
    a_on_b = 0.0 if still else float(np.dot(b_x, a_level - a_level.mean()) / np.dot(b_x, b_x))
    return {
        "slope": slope,
        "unit_sd": float(np.std(y, ddof=1)),
        "after_level_sd": float(np.sqrt(np.sum(residual**2) / (len(y) - 2))),
        "a_on_b_slope": a_on_b,
        "sides_corr": 0.0 if still else float(np.corrcoef(a_level, b_level)[0, 1]),
    }


def components(units: list[np.ndarray]) -> dict[str, float]:
    """The split of the units' spread (log scale): `unit_sd` across the units' means,
    `block_sd` of one round within a unit, `block_part_sd` = block_sd / sqrt(K) (what the
    rounds' noise leaves in a unit), and `state_sd`, the rest (0 where there is none)."""
    if len(units) < 3:
        raise ValueError("need at least 3 worker pairs to split their spread")
    k = len(units[0])
    unit_var = float(np.var([u.mean() for u in units], ddof=1))
    block_var = float(np.mean([np.var(u, ddof=1) for u in units]))
    return {
        "units": len(units),
        "blocks": k,
        "unit_sd": math.sqrt(unit_var),
        "block_sd": math.sqrt(block_var),
        "block_part_sd": math.sqrt(block_var / k),
        "state_sd": math.sqrt(max(0.0, unit_var - block_var / k)),
    }


def _steps(folder: Path) -> list[float]:
    per_epoch = json.loads((folder / "steps.json").read_text())["per_epoch"]
    return [s / 1e9 for s in per_epoch[0]]  # steps.json holds nanoseconds


def sweep_units(sweep: Path, a: str, b: str, d: sequential.Design) -> dict[str, list[np.ndarray]]:
    """series (the configuration folder's name past the backend) -> its worker pairs' rounds."""
    return {series: [u for u, _ in pairs] for series, pairs in sweep_pairs(sweep, a, b, d).items()}


def sweep_pairs(
    sweep: Path, a: str, b: str, d: sequential.Design
) -> dict[str, list[tuple[np.ndarray, float]]]:
    """series -> its worker pairs' (rounds, level)."""
    found: dict[str, list[tuple[np.ndarray, float]]] = {}
    for a_dir in sorted(sweep.glob(f"backend={a},*")):
        series = a_dir.name.split(",", 1)[1]
        b_dir = sweep / f"backend={b},{series}"
        for repeat in sorted(a_dir.glob("repeat-*")):
            partner = b_dir / repeat.name
            if (repeat / "steps.json").exists() and (partner / "steps.json").exists():
                pair = rounds_and_level(_steps(repeat), _steps(partner), d)
                if pair is not None:
                    found.setdefault(series, []).append(pair)
    return found


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("sweeps", nargs="+", type=Path, help="results/sweeps/<time> folders")
    p.add_argument("--a", default="torch")
    p.add_argument("--b", default="tensorflow")
    conf = sequential.load_design()
    p.add_argument("--blocks", type=int, default=conf.resident_blocks)
    p.add_argument("--ticks", type=int, default=conf.turn_ticks)
    p.add_argument("--warmup", type=int, default=conf.warmup_ticks)
    args = p.parse_args(argv)
    design = sequential.Design(
        pairing="resident",
        resident_blocks=args.blocks,
        turn_ticks=args.ticks,
        warmup_ticks=args.warmup,
    )
    rows: list[dict[str, Any]] = []
    for sweep in args.sweeps:
        for series, pairs in sweep_pairs(sweep, args.a, args.b, design).items():
            if len(pairs) >= 3:
                units, levels = [u for u, _ in pairs], [level for _, level in pairs]
                rows.append({"sweep": sweep.name, "series": series, **components(units),
                             "level": level_dependence(units, levels)})  # fmt: skip
    if not rows:
        p.error("no series with 3 or more resident worker pairs in those folders")
    print("| sweep | series | units | unit sd | block sd | block noise in a unit | state sd |")
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        print(
            f"| {r['sweep']} | {r['series']} | {r['units']} | {r['unit_sd']:.3f} | "
            f"{r['block_sd']:.3f} | {r['block_part_sd']:.3f} | {r['state_sd']:.3f} |"
        )
    print()
    print(
        "| sweep | series | units | log ratio on level, slope | unit sd | about the slope "
        f"| {args.a}'s level on {args.b}'s, slope | their correlation |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for r in rows:
        level = r["level"]
        print(
            f"| {r['sweep']} | {r['series']} | {r['units']} | {level['slope']:.2f} | "
            f"{level['unit_sd']:.3f} | {level['after_level_sd']:.3f} | "
            f"{level['a_on_b_slope']:.2f} | {level['sides_corr']:+.2f} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
