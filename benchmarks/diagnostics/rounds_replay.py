"""How many rows of a measured speed table would the rounds by reach have decided? A replay.

    python -m benchmarks.diagnostics.rounds_replay TABLE.json... [--budget-minutes M] [--seeds N]
    python -m benchmarks.diagnostics.rounds_replay --synthetic [--quantiles 0.75 0.5]

Each TABLE.json is a file benchmarks/outside.py or overhead.py wrote (`--out`); several are
replayed as one table under one budget (by default the seconds all their rows took). Each row is
replayed through benchmarks/rounds.py's `run_table` on a fake clock: a pair is a unit drawn with
replacement from that row's measured pair ratios (seeded), and costs the row's measured seconds
a pair. Both ways of spending the budget see the same draws for the same seed: every row every
round (`--even-rounds`) and the rounds by reach. Printed: per way, the decided rows of each
seed, their mean, and per row how often it decided. The draws repeat what each row showed, so
a row is replayed at its own measured ratio and spread: this asks what the budget's allocation
changes, not what a new measurement would find. `--synthetic` replays a made-up table instead
(four rows 15% apart and four on the margin's edge; tests/test_rounds.py holds it), and
`--quantiles` adds rounds by reach at other quantiles of the projection than `reach_quantile`.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import rounds
from benchmarks.pairs import Sample
from twinbench import sequential


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t


@dataclass(frozen=True)
class RowSource:
    """A row to replay: its label, how its unit ratios are drawn, and its seconds a unit."""

    label: str
    draw: Callable[[np.random.Generator], list[float]]
    unit_s: float


UNITS_DRAWN = 200  # more than any row runs (the tables ask at most 30-40)


def measured_sources(results: list[dict[str, Any]]) -> list[RowSource]:
    """One source per measured row: units drawn with replacement from its pair ratios, at its
    measured seconds a pair."""
    sources = []
    for r in results:
        ratios = np.asarray(r["a_epoch_s"], float) / np.asarray(r["b_epoch_s"], float)

        def draw(rng: np.random.Generator, ratios=ratios) -> list[float]:
            return rng.choice(ratios, size=UNITS_DRAWN).tolist()

        seconds = float(r["decision"]["elapsed_s"]) / len(ratios)
        sources.append(RowSource(f"{r['model']} {r['backend']}", draw, seconds))
    return sources


# The synthetic table (--synthetic; tests/test_rounds.py): four rows twinbench 15% faster and
# four on the margin's edge, each unit's log ratio spread by 8%, 30 s a unit.
SYNTHETIC = {"near": (math.log(0.85), 0.08), "edge": (math.log(1.05), 0.08)}
SYNTHETIC_UNIT_S = 30.0


def synthetic_sources() -> list[RowSource]:
    sources = []
    for kind in ("near", "edge"):
        mean, sd = SYNTHETIC[kind]

        def draw(rng: np.random.Generator, mean=mean, sd=sd) -> list[float]:
            return np.exp(rng.normal(mean, sd, UNITS_DRAWN)).tolist()

        sources += [RowSource(f"{kind}{i}", draw, SYNTHETIC_UNIT_S) for i in range(4)]
    return sources


def replayed_rows(sources: list[RowSource], clock: FakeClock, seed: int) -> list[rounds.Row]:
    """The rows of one replay: each source's units in the order this seed draws them."""
    rng = np.random.default_rng(seed)
    rows = []
    for source in sources:
        draws = iter(source.draw(rng))

        def unit(k: int, draws=draws, unit_s=source.unit_s) -> tuple[Sample, Sample]:
            clock.t += unit_s
            return Sample(next(draws), 1.0), Sample(1.0, 1.0)

        def never() -> Sample:
            raise AssertionError("a replayed row has units only")

        meta = {"row": source.label}
        rows.append(rounds.Row(source.label, never, never, meta, unit, "resident"))
    return rows


def ways_to_spend(quantiles: list[float]) -> dict[str, dict[str, Any]]:
    """name -> run_table's options: plain rounds, rounds by reach, and by reach at each of
    `quantiles` of the projection."""
    base = sequential.load_design(max_seconds=None)
    ways: dict[str, dict[str, Any]] = {
        "every row every round": {"even_rounds": True},
        "rounds by reach": {"design": base},
    }
    for q in quantiles:
        ways[f"by reach at the {q:g} quantile"] = {"design": replace(base, reach_quantile=q)}
    return ways


def replay(
    sources: list[RowSource],
    budget_minutes: float,
    seeds: int,
    pairs: int,
    ways: dict[str, dict[str, Any]],
) -> dict[str, dict[str, Any]]:
    """Per way: decided rows per seed, and per row how often it decided."""
    out: dict[str, dict[str, Any]] = {}
    for name, options in ways.items():
        per_seed, per_row = [], {s.label: 0 for s in sources}
        for seed in range(seeds):
            clock = FakeClock()
            rows = replayed_rows(sources, clock, seed)
            table = rounds.run_table(
                rows, pairs, budget_minutes, lambda s: None, now=clock.now, **options
            )
            decided = [t["row"] for t in table if t["decision"]["outcome"] != "undecided"]
            per_seed.append(len(decided))
            for row in decided:
                per_row[row] += 1
        out[name] = {"per_seed": per_seed, "per_row": per_row}
    return out


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "tables", type=Path, nargs="*", help="files benchmarks/outside.py or overhead.py wrote"
    )
    p.add_argument("--synthetic", action="store_true", help="the synthetic table instead")
    p.add_argument("--budget-minutes", type=float, help="default: the seconds the rows took")
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--pairs", type=int, default=40, help="most pairs a row (the tables' 40)")
    p.add_argument(
        "--quantiles", type=float, nargs="*", default=[], help="also by reach at these quantiles"
    )
    args = p.parse_args(argv)
    if bool(args.tables) == args.synthetic:
        p.error("give the tables to replay, or --synthetic")
    if args.synthetic:
        sources, name = synthetic_sources(), "the synthetic table"
        budget = args.budget_minutes or 30.0
    else:
        results = []
        for path in args.tables:
            try:
                results += json.loads(path.read_text())["results"]
            except (OSError, ValueError, KeyError) as exc:
                p.error(f"{path}: not a file written by --out ({exc})")
        sources, name = measured_sources(results), " ".join(str(t) for t in args.tables)
        budget = args.budget_minutes or sum(r["decision"]["elapsed_s"] for r in results) / 60
    found = replay(sources, budget, args.seeds, args.pairs, ways_to_spend(args.quantiles))
    print(f"{name}: {len(sources)} rows, {budget:.0f} min, {args.seeds} seeded replays")
    for way, f in found.items():
        print(f"  {way}: decided {np.mean(f['per_seed']):.1f} rows a table "
              f"(per seed {f['per_seed']})")  # fmt: skip
    print(f"  how often each row decided ({' / '.join(found)}):")
    for row in sources:
        counts = " / ".join(f"{f['per_row'][row.label]:>3}" for f in found.values())
        print(f"    {row.label:<28} {counts}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
