"""How many rows of a measured speed table would the rounds by reach have decided? A replay.

    python -m benchmarks.diagnostics.rounds_replay TABLE.json... [--budget-minutes M] [--seeds N]

Each TABLE.json is a file benchmarks/outside.py or overhead.py wrote (`--out`); several are
replayed as one table under one budget (by default the seconds all their rows took). Each row is
replayed through benchmarks/rounds.py's `run_table` on a fake clock: a pair is a unit drawn with
replacement from that row's measured pair ratios (seeded), and costs the row's measured seconds
a pair. Both ways of spending the budget see the same draws for the same seed: every row every
round (`--even-rounds`) and the rounds by reach. Printed: per way, the decided rows of each
seed, their mean, and per row how often it decided. The draws repeat what each row showed, so
a row is replayed at its own measured ratio and spread: this asks what the budget's allocation
changes, not what a new measurement would find.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import rounds
from benchmarks.pairs import Sample


class FakeClock:
    def __init__(self) -> None:
        self.t = 0.0

    def now(self) -> float:
        return self.t


def replayed_rows(results: list[dict[str, Any]], clock: FakeClock, seed: int) -> list[rounds.Row]:
    """One row per measured row: units drawn from its pair ratios, at its seconds a pair."""
    rng = np.random.default_rng(seed)
    rows = []
    for r in results:
        ratios = np.asarray(r["a_epoch_s"], float) / np.asarray(r["b_epoch_s"], float)
        pair_s = float(r["decision"]["elapsed_s"]) / len(ratios)
        draws = iter(rng.choice(ratios, size=200).tolist())

        def unit(k: int, draws=draws, pair_s=pair_s) -> tuple[Sample, Sample]:
            clock.t += pair_s
            return Sample(next(draws), 1.0), Sample(1.0, 1.0)

        def never() -> Sample:
            raise AssertionError("a replayed row has units only")

        label = f"{r['model']} {r['backend']}"
        rows.append(rounds.Row(label, never, never, {"row": label}, unit, "resident"))
    return rows


def replay(
    results: list[dict[str, Any]], budget_minutes: float, seeds: int, pairs: int
) -> dict[str, dict[str, Any]]:
    """Per way ("even", "by reach"): decided rows per seed, and per row how often it decided."""
    out: dict[str, dict[str, Any]] = {}
    for name, even in (("every row every round", True), ("rounds by reach", False)):
        per_seed, per_row = [], {f"{r['model']} {r['backend']}": 0 for r in results}
        for seed in range(seeds):
            clock = FakeClock()
            rows = replayed_rows(results, clock, seed)
            table = rounds.run_table(
                rows, pairs, budget_minutes, lambda s: None, now=clock.now, even_rounds=even
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
        "tables", type=Path, nargs="+", help="files benchmarks/outside.py or overhead.py wrote"
    )
    p.add_argument("--budget-minutes", type=float, help="default: the seconds the rows took")
    p.add_argument("--seeds", type=int, default=20)
    p.add_argument("--pairs", type=int, default=40, help="most pairs a row (the tables' 40)")
    args = p.parse_args(argv)
    results = []
    for path in args.tables:
        try:
            results += json.loads(path.read_text())["results"]
        except (OSError, ValueError, KeyError) as exc:
            p.error(f"{path}: not a file written by --out ({exc})")
    budget = args.budget_minutes or sum(r["decision"]["elapsed_s"] for r in results) / 60
    found = replay(results, budget, args.seeds, args.pairs)
    names = " ".join(str(t) for t in args.tables)
    print(f"{names}: {len(results)} rows, {budget:.0f} min, {args.seeds} seeded replays")
    for name, f in found.items():
        print(f"  {name}: decided {np.mean(f['per_seed']):.1f} rows a table "
              f"(per seed {f['per_seed']})")  # fmt: skip
    print("  how often each row decided (every row every round / rounds by reach):")
    ways = list(found.values())
    for row in ways[0]["per_row"]:
        print(f"    {row:<28} {ways[0]['per_row'][row]:>3} / {ways[1]['per_row'][row]:>3}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
