"""Do pairs from several sweeps form one sample? Held-out halves of the sweeps of one comparison.

    python -m benchmarks.diagnostics.sessions_held_out DIR_OR_PAIRS_JSON... [--reference torch]
        [--metric steady_step_s] [--splits 2000] [--seed 0] [--save PAIRS.json]

Reads the interleaved pairs (result records with a pair_id) under the folders, as
`python -m analysis.compute.paired` does, and groups each sweep's pairs by what they compare
(model, cores, the other backend); `--save` writes those ratios to a JSON file that can stand
in for the folders later (a finding keeps its ratios, not its hundreds of records). For every
comparison measured in at least MIN_SWEEPS sweeps it splits the sweeps at random into two
halves, many times, and asks of two ways of putting the pairs together whether the halves agree
within their own intervals:

- *pooled pairs*: every pair one value, the exact interval of their median
  (twinbench.stats.paired_ratio), what the analysis did before 2026-12-06;
- *one value per sweep*: each sweep's median, a t-interval over sweeps
  (twinbench.stats.sessions_ratio), what it does now.

The halves "disagree" when their centres (logs) differ by more than the root sum of squares of
their intervals' half-widths: for two independent valid 95% intervals that happens in about 5%
of splits (less for t-intervals over few sweeps, whose half-widths use t rather than 1.96). A
way that counts drifting sessions as one sample disagrees more often. Figures in
docs/findings/2026-12-06-sessions-as-units.md.
"""

from __future__ import annotations

import argparse
import json
import math
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from analysis.compute import paired
from analysis.load import backends
from analysis.load.records import find_result_files, read_record
from twinbench import stats

MIN_SWEEPS = 4  # two halves of two sweeps each: the least a t-interval over sweeps can take

Interval = tuple[float, float, float]  # centre, low, high, as logs


def pooled(sweeps: Sequence[Sequence[float]]) -> Interval:
    s = stats.paired_ratio([r for sweep in sweeps for r in sweep], [1.0] * sum(map(len, sweeps)))
    return math.log(s.median), math.log(s.ci_low), math.log(s.ci_high)


def per_sweep(sweeps: Sequence[Sequence[float]]) -> Interval:
    labels = [str(i) for i, sweep in enumerate(sweeps) for _ in sweep]
    s = stats.sessions_ratio([r for sweep in sweeps for r in sweep], labels)
    return math.log(s.median), math.log(s.ci_low), math.log(s.ci_high)


WAYS: dict[str, Callable[[Sequence[Sequence[float]]], Interval]] = {
    "pooled pairs": pooled,
    "one value per sweep": per_sweep,
}


def disagreement(
    sweeps: list[list[float]], way: Callable[[Sequence[Sequence[float]]], Interval],
    splits: int, rng: np.random.Generator,
) -> float:  # fmt: skip
    """The share of random half-splits of the sweeps whose halves' intervals disagree."""
    misses = 0
    for _ in range(splits):
        order = rng.permutation(len(sweeps))
        half = len(order) // 2
        a = way([sweeps[i] for i in order[:half]])
        b = way([sweeps[i] for i in order[half:]])
        widths = ((a[2] - a[1]) / 2, (b[2] - b[1]) / 2)
        misses += abs(a[0] - b[0]) > math.hypot(*widths)
    return misses / splits


def comparisons(
    inputs: list[Path], reference: str, metric: str
) -> dict[str, dict[str, list[float]]]:
    """'<model> cpus=<cores> <reference> / <other>' -> sweep -> its pairs' ratios: from the
    records under folders, or from a file `--save` wrote."""
    out: dict[str, dict[str, list[float]]] = {}
    records = []
    for given in inputs:
        if given.is_file():
            for key, by_sweep in json.loads(given.read_text()).items():
                out.setdefault(key, {}).update(by_sweep)
        else:
            records += [read_record(p) for p in find_result_files(given)]
    for c in paired.compare(records, reference, metric):
        key = f"{c.model} cpus={c.cpus} {reference} / {c.other}"
        ratios = [p.reference_value / p.other_value for p in c.pairs]
        out.setdefault(key, {})[c.series] = ratios
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "inputs", nargs="+", type=Path, help="results folders holding sweeps, or --save's files"
    )
    parser.add_argument("--reference", default=backends.DEFAULT_REFERENCE)
    parser.add_argument("--metric", default="steady_step_s", choices=sorted(paired.METRICS))
    parser.add_argument("--splits", type=int, default=2000, help="random half-splits per row")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--save", type=Path, help="write the pairs' ratios here, per sweep")
    args = parser.parse_args(argv)
    missing = [str(f) for f in args.inputs if not f.exists()]
    if missing:
        parser.error(f"no such folder or file: {', '.join(missing)}")
    rng = np.random.default_rng(args.seed)
    try:
        found = comparisons(args.inputs, args.reference, args.metric)
    except (ValueError, AttributeError) as e:
        parser.error(f"not a file --save wrote: {e}")
    if args.save:
        args.save.write_text(json.dumps(found, indent=1) + "\n")
    print("halves of the sweeps whose intervals disagree: about 5% or less where both are valid")
    shown = 0
    for key, by_sweep in sorted(found.items()):
        if len(by_sweep) < MIN_SWEEPS:
            continue
        shown += 1
        sweeps = list(by_sweep.values())
        medians = sorted(float(np.median(s)) for s in sweeps)
        print(
            f"{key}: {len(sweeps)} sweeps, {sum(map(len, sweeps))} pairs; sweep medians "
            f"{medians[0]:.3f}-{medians[-1]:.3f}"
        )
        for name, way in WAYS.items():
            centre, lo, hi = way(sweeps)
            rate = disagreement(sweeps, way, args.splits, rng)
            print(
                f"  {name:>19}: {math.exp(centre):.3f} [{math.exp(lo):.3f}, {math.exp(hi):.3f}]; "
                f"halves disagree in {rate:.1%} of {args.splits} splits"
            )
    if not shown:
        print(f"no comparison has pairs from {MIN_SWEEPS} or more sweeps under these folders")
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
