"""Does a run's steady-step interval cover what it claims? Its own steps, held out.

A run's steady step is the median of its steps after the warm-up, with a 95% interval. Taken
over the steps themselves (stats.summarize) the interval treats them as independent draws;
taken over the medians of consecutive batches (stats.summarize_series, what a run records since
2026-12-07) it lets neighbouring steps be alike. This splits each run's steady steps into
2 x `--batches` consecutive batches, fits each form on the odd batches and on the even ones, and
asks whether the two halves agree: their medians' difference against the two 95% half-widths
added in quadrature, on the logs. The halves cover the same minutes of the run, so a drift
moves both alike; valid intervals disagree in about 5%. It also sets the run's first half
against its second: that is a forecast, which neither form claims, and a run that drifts
(its record's `drift` flag) shows how far it fails.

    python -m benchmarks.diagnostics.run_intervals <folder or steps.json>... [--save steps.json.gz]
    python -m benchmarks.diagnostics.run_intervals --from steps.json.gz

`--save` keeps every run's steady steps (ms) and its label, so the figures can be re-derived
without the run folders (measurements/2026-12-07/run-intervals/).
"""

from __future__ import annotations

import argparse
import gzip
import json
import math
from pathlib import Path

import numpy as np

from twinbench import stats

MIN_STEPS = 400  # 40 batches of 10 steps: shorter runs say little about their own correlation


def read_runs(paths: list[str]) -> dict[str, list[float]]:
    """label -> the run's steady steps in ms, every distinct run under `paths` long enough."""
    runs: dict[str, list[float]] = {}
    files = []
    for p in map(Path, paths):
        files += sorted(p.rglob("steps.json")) if p.is_dir() else [p]
    for steps_file in files:
        result = steps_file.with_name("result.json")
        try:
            steps, record = json.loads(steps_file.read_text()), json.loads(result.read_text())
        except (OSError, ValueError):
            continue
        warmup = (record.get("timing") or {}).get("warmup_steps", 10)
        steady = stats.steady_steps(steps["per_epoch"], warmup, ns_per_unit=1e6)
        if len(steady) < MIN_STEPS:
            continue
        label = f"{record.get('backend')} {record.get('model')} cpus={record.get('cpus')}"
        label += f" {record.get('run_id') or steps_file.parent.name}"
        runs.setdefault(label, [round(s, 4) for s in steady])
    return runs


def _log_half_width(s: stats.Summary) -> float:
    return (math.log(s.ci_high) - math.log(s.ci_low)) / 2


def disagree(a: stats.Summary, b: stats.Summary) -> bool:
    gap = abs(math.log(a.median) - math.log(b.median))
    return gap > math.hypot(_log_half_width(a), _log_half_width(b))


def check(steps: list[float], batches: int) -> dict[str, float | bool]:
    """One run: the two forms, each fitted on the odd and on the even batches."""
    x = np.asarray(steps)
    chunks = np.array_split(x, 2 * batches)
    odd, even = np.concatenate(chunks[0::2]), np.concatenate(chunks[1::2])
    first, second = x[: len(x) // 2], x[len(x) // 2 :]
    centred = x - x.mean()
    return {
        "steps": len(x),
        "lag1": float((centred[1:] * centred[:-1]).mean() / centred.var()),
        "drift": float(stats.drift(list(x))["ratio_last_to_first_third"]),
        "steps_half_width": _log_half_width(stats.summarize(x)),
        "batches_half_width": _log_half_width(stats.summarize_series(x, batches)),
        "steps_disagree": disagree(stats.summarize(odd), stats.summarize(even)),
        "batches_disagree": disagree(
            stats.summarize_series(odd, batches), stats.summarize_series(even, batches)
        ),
        "steps_halves_disagree": disagree(stats.summarize(first), stats.summarize(second)),
        "batches_halves_disagree": disagree(
            stats.summarize_series(first, batches), stats.summarize_series(second, batches)
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("paths", nargs="*", help="run or sweep folders, or steps.json files")
    parser.add_argument("--from", dest="source", help="a file --save wrote, instead of paths")
    parser.add_argument("--save", help="write the runs' steady steps here (.json.gz)")
    parser.add_argument("--batches", type=int, default=stats.STEP_BATCHES)
    parser.add_argument("--verbose", action="store_true", help="a line per run")
    args = parser.parse_args(argv)
    if args.source:
        runs = json.loads(gzip.decompress(Path(args.source).read_bytes()))
    else:
        runs = read_runs(args.paths)
    if args.save:
        Path(args.save).write_bytes(gzip.compress(json.dumps(runs, sort_keys=True).encode()))
    if not runs:
        print(f"no run with {MIN_STEPS} or more steady steps")
        return 1
    rows = {label: check(steps, args.batches) for label, steps in sorted(runs.items())}
    if args.verbose:
        for label, r in rows.items():
            print(
                f"{label[:60]:60s} {r['steps']:6d} steps  lag-1 {r['lag1']:5.2f}  drift "
                f"{r['drift']:.2f}  +-{100 * r['steps_half_width']:.2f}% (steps) "
                f"+-{100 * r['batches_half_width']:.2f}% (batches)  disagree: "
                f"{'steps ' if r['steps_disagree'] else ''}"
                f"{'batches' if r['batches_disagree'] else ''}"
            )
    n = len(rows)
    values = list(rows.values())

    def median(key: str) -> float:
        return float(np.median([r[key] for r in values]))

    print(f"{n} runs of {MIN_STEPS} or more steady steps; {args.batches} batches a half")
    print(f"  median lag-1 correlation of the steps {median('lag1'):.2f}")
    for form in ("steps", "batches"):
        bad = sum(bool(r[f"{form}_disagree"]) for r in values)
        halves = sum(bool(r[f"{form}_halves_disagree"]) for r in values)
        print(
            f"  interval over the {form}: median half-width +-"
            f"{100 * median(f'{form}_half_width'):.2f}%; odd and even pieces disagree in "
            f"{bad} of {n} ({bad / n:.0%}); first and second half in {halves} ({halves / n:.0%})"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
