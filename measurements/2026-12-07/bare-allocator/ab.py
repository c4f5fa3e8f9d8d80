"""twinbench against the bare loop (torch, resident worker pairs, as the speed table's bare-loop
column), with both sides under glibc's default allocator and both under `retain`, the
conditions taken in turns unit by unit so that the host's phases hit all of them alike.

    python measurements/2026-12-07/bare-allocator/ab.py --units 12 --models mlp tl_mlp --cpus 2

Prints each unit as it ends and, per condition, the mean log ratio twinbench / bare loop over
the units with its fixed-n t interval (95%; the units are worker pairs, so independent).
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import sys
from dataclasses import replace

from scipy import stats

from benchmarks import overhead, pairs, turn_pairs
from frameworks import allocator
from twinbench import sequential

BLOCKS = {"mlp": 40, "tl_mlp": 12, "cnn": 6, "cifar10_cnn": 12, "bilstm": 12}


def unit(model: str, mode: str, cpus: int, first: bool) -> float:
    design = replace(
        sequential.load_design(max_seconds=None), pairing="resident", resident_blocks=BLOCKS[model]
    )
    extra = [f"{k}={v}" for k, v in allocator.VARIABLES[mode].items()]
    ours, theirs = turn_pairs.measure_resident_pair(
        pairs.twinbench_overrides("torch", model, cpus, 1, None, [f"backend.allocator={mode}"]),
        lambda n: ["env", *extra, *overhead.bare_cmd("torch", model, cpus, n, 1)],
        twinbench_first=first,
        design=design,
    )
    return math.log(ours.epoch_s / theirs.epoch_s)


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--units", type=int, default=12)
    p.add_argument("--models", nargs="+", default=["mlp", "tl_mlp"])
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--json")
    a = p.parse_args()
    conditions = [(m, mode) for m in a.models for mode in (allocator.DEFAULT, allocator.RETAIN)]
    logs: dict[str, list[float]] = {f"{m} {mode}": [] for m, mode in conditions}
    for i in range(a.units):
        order = conditions[i % len(conditions) :] + conditions[: i % len(conditions)]
        for m, mode in order:
            x = unit(m, mode, a.cpus, first=i % 2 == 0)
            logs[f"{m} {mode}"].append(x)
            print(f"unit {i + 1} {m} {mode}: {math.exp(x):.3f}", flush=True)
    print(f"twinbench / bare loop, torch, {a.cpus} cores, resident worker pairs")
    for key, xs in logs.items():
        n, mean, sd = len(xs), statistics.fmean(xs), statistics.stdev(xs)
        h = stats.t.ppf(0.975, n - 1) * sd / math.sqrt(n)
        print(
            f"{key:<16} {math.exp(mean):.3f} [{math.exp(mean - h):.3f}, {math.exp(mean + h):.3f}]"
            f"  units {n}, sd of log ratio {sd:.3f}"
        )
    if a.json:
        with open(a.json, "w") as f:
            json.dump(logs, f, indent=1)


if __name__ == "__main__":
    sys.exit(main())
