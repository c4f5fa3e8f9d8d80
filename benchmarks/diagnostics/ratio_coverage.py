"""Do the report's ratio intervals of independent repeats cover? A/A splits of real repeats.

    python -m benchmarks.diagnostics.ratio_coverage collect OUT.json DIR_OR_JSON...
    python -m benchmarks.diagnostics.ratio_coverage report GROUPS.json [--simulate]

`collect` gathers groups of repeats of one configuration, in the order they ran: the run
records (result.json) under sweep folders, one group per configuration folder and statistic
(`train_time_s`: the sum of epoch wall times, the report's default; `steady_step_s`: the run's
median steady step), and the per-run lists of the measurement files of 2026-11-30 (sweeps.json's
repeats=auto runs; benchmarks.outside / benchmarks.overhead files, each side's per-process
median epoch). Groups of fewer than MIN_GROUP runs are left out.

`report` splits every group into two disjoint halves A and B of n runs each, A/A: both halves
measured one configuration, so an honest 95% ratio interval holds 1.0 in 95% of splits. Two
ways to split:

- *random*: A and B drawn at random from the group's runs (runs spread over the same time);
- *blocks*: A and B each n consecutive runs, A's block before B's (every such pair): the
  non-interleaved case, A measured in one stretch of time and B in a later one.

For the interval the report printed before (a percentile bootstrap of the ratio of medians,
kept here as `percentile_bootstrap`) and the one it prints now (`twinbench.stats.ratio_ci`, a
Welch t-interval on logs), it prints the share of splits whose interval holds 1.0, each group
weighted equally. `--simulate` adds the same count on draws from this machine's noise model
(`process_noise`). Numbers in docs/findings/2026-12-01-ratio-interval-coverage.md.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Callable, Sequence
from itertools import combinations
from pathlib import Path
from typing import Any

import numpy as np

from twinbench import stats

MIN_GROUP = 4
SIDES = (2, 3, 4, 7)  # runs a side: a sweep's usual 2-7 repeats
RANDOM_SPLITS = 200  # per group and n
SIM_DRAWS = 2000  # per n: the coverage's standard error at 95% is 0.5 points

Interval = Callable[[Sequence[float], Sequence[float]], tuple[float, float | None, float | None]]


def percentile_bootstrap(
    a: Sequence[float], b: Sequence[float], resamples: int = 2000, seed: int = 0
) -> tuple[float, float | None, float | None]:
    """The interval twinbench.stats.ratio_ci printed until 2026-12-01: median(a) / median(b)
    with the 2.5 and 97.5 percentiles of 2000 seeded resamples of both sides' medians."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    ratio = float(np.median(a) / np.median(b))
    if a.size < 2 or b.size < 2:
        return ratio, None, None
    rng = np.random.default_rng(seed)
    ra = np.median(rng.choice(a, (resamples, a.size)), axis=1)
    rb = np.median(rng.choice(b, (resamples, b.size)), axis=1)
    lo, hi = np.percentile(ra / rb, [2.5, 97.5])
    return ratio, float(lo), float(hi)


METHODS: dict[str, Interval] = {
    "percentile bootstrap (before)": percentile_bootstrap,
    "Welch t on logs (now)": stats.ratio_ci,
}


# ------------------------------------------------------------------------------ the noise model


def process_noise(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Log time of one process relative to its configuration's own, as tests/test_sequential.py
    draws it: memory placement +-10% (uniform) and, in 30% of processes, the slow level (+8%)."""
    return np.log1p(rng.uniform(-0.10, 0.10, shape)) + math.log(1.08) * (rng.random(shape) < 0.3)


def simulated_coverage(interval: Interval, n: int, draws: int = SIM_DRAWS, seed: int = 0) -> float:
    """Share of A/A draws (n processes a side, one configuration) whose interval holds 1.0."""
    rng = np.random.default_rng(seed)
    a = np.exp(process_noise(rng, (draws, n)))
    b = np.exp(process_noise(rng, (draws, n)))
    return float(np.mean([_holds_one(interval(x, y)) for x, y in zip(a, b, strict=True)]))


# ------------------------------------------------------------------------------ real A/A splits


def _holds_one(result: tuple[float, float | None, float | None]) -> bool:
    _, lo, hi = result
    if lo is None or hi is None:
        raise ValueError("no interval: fewer than two runs a side")
    return lo <= 1.0 <= hi


def random_splits(size: int, n: int, count: int, seed: int = 0) -> list[tuple[list[int], ...]]:
    """`count` random pairs of disjoint index sets (A, B) of n each, out of `size` runs."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(count):
        order = rng.permutation(size)
        out.append((sorted(order[:n].tolist()), sorted(order[n : 2 * n].tolist())))
    return out


def block_splits(size: int, n: int) -> list[tuple[list[int], ...]]:
    """Every pair of n consecutive runs A and a later, disjoint n consecutive runs B."""
    return [
        (list(range(i, i + n)), list(range(j, j + n)))
        for i, j in combinations(range(size - n + 1), 2)
        if j >= i + n
    ]


def group_coverage(
    values: Sequence[float], interval: Interval, n: int, scheme: str, count: int = RANDOM_SPLITS
) -> float:
    """Share of a group's A/A splits (`scheme`: "random", `count` of them, or "blocks": all)
    whose interval holds 1.0."""
    x = np.asarray(values, float)
    if scheme == "random":
        splits = random_splits(x.size, n, count)
    elif scheme == "blocks":
        splits = block_splits(x.size, n)
    else:
        raise ValueError(f"unknown scheme {scheme!r}")
    return float(np.mean([_holds_one(interval(x[a], x[b])) for a, b in splits]))


def coverage_table(
    groups: list[dict[str, Any]],
    methods: dict[str, Interval] = METHODS,
    sides: Sequence[int] = SIDES,
    schemes: Sequence[str] = ("random", "blocks"),
    count: int = RANDOM_SPLITS,
) -> list[dict[str, Any]]:
    """Per scheme, n and method: the mean over groups (those with at least 2n runs) of each
    group's share of splits that hold 1.0."""
    rows = []
    for scheme in schemes:
        for n in sides:
            usable = [g for g in groups if len(g["values"]) >= 2 * n]
            if not usable:
                continue
            row: dict[str, Any] = {"scheme": scheme, "n": n, "groups": len(usable)}
            for name, interval in methods.items():
                row[name] = float(
                    np.mean(
                        [group_coverage(g["values"], interval, n, scheme, count) for g in usable]
                    )
                )
            rows.append(row)
    return rows


def median_width(
    groups: list[dict[str, Any]], interval: Interval, n: int, count: int = 20
) -> float:
    """Median of high / low over `count` random A/A splits a group: what the interval costs."""
    widths = []
    for g in (g for g in groups if len(g["values"]) >= 2 * n):
        x = np.asarray(g["values"], float)
        for a, b in random_splits(x.size, n, count):
            _, lo, hi = interval(x[a], x[b])
            widths.append(hi / lo)
    return float(np.median(widths))


# ------------------------------------------------------------------------------ collecting


def _records(folder: Path) -> list[dict[str, Any]]:
    groups: dict[Path, list[dict[str, Any]]] = {}
    for path in sorted(folder.rglob("result.json")):
        record = json.loads(path.read_text())
        if record.get("status") != "ok":
            continue
        run = path.parent
        config = run.parent if run.name.startswith("repeat-") else run
        groups.setdefault(config, []).append(record)
    out = []
    for config, records in groups.items():
        records.sort(key=lambda r: str(r.get("started", "")))
        name = f"{folder.parent.name}/{folder.name}/{config.relative_to(folder)}"
        train = [math.fsum(r["epoch_times_s"]) for r in records if r.get("epoch_times_s")]
        steady = [
            r["timing"]["steady_step_s"]["median"]
            for r in records
            if isinstance(r.get("timing", {}).get("steady_step_s"), dict)
        ]
        out.append({"name": name, "statistic": "train_time_s", "values": train})
        out.append({"name": name, "statistic": "steady_step_s", "values": steady})
    return out


def _measurement_file(path: Path) -> list[dict[str, Any]]:
    data = json.loads(path.read_text())
    out = []
    for key, runs in data.get("repeats-auto", {}).items():
        ok = [r for r in runs if r.get("status") == "ok"]
        name = f"{path.name}/repeats-auto/{key}"
        train = [math.fsum(r["epoch_times_s"]) for r in ok]
        out.append({"name": name, "statistic": "train_time_s", "values": train})
        steady = [r["steady_step_ms"] / 1000 for r in ok]
        out.append({"name": name, "statistic": "steady_step_s", "values": steady})
    for result in data.get("results", []):
        for side in ("a", "b"):
            values = result.get(f"{side}_epoch_s")
            if isinstance(values, list):
                name = f"{path.name}/{result.get('backend')} {result.get('model')} {side}"
                out.append({"name": name, "statistic": "median_epoch_s", "values": values})
    return out


def collect(sources: list[Path]) -> list[dict[str, Any]]:
    groups: list[dict[str, Any]] = []
    for source in sources:
        groups += _records(source) if source.is_dir() else _measurement_file(source)
    return [
        {**g, "values": [float(f"{v:.6g}") for v in g["values"]]}
        for g in groups
        if len(g["values"]) >= MIN_GROUP
    ]


# ------------------------------------------------------------------------------ printing


def verdict_table(
    groups: list[dict[str, Any]],
    statistics: Sequence[str] = ("steady_step_s",),
    sides: Sequence[int] = SIDES,
    schemes: Sequence[str] = ("blocks", "random"),
    count: int = RANDOM_SPLITS,
) -> list[dict[str, Any]]:
    """The release history's verdict between neighbours (analysis/compute/release_history.py
    `neighbour_verdict`, the decision engine's margin) on A/A splits of real runs of
    `statistics`: per scheme and n, the mean over groups of each outcome's share. "faster" and
    "slower" are false decisions here (both sides ran the same software); "blocks" is how two
    releases are measured when one stack's runs follow the other's."""
    from analysis.compute.release_history import neighbour_verdict
    from twinbench import sequential

    design = sequential.load_design()
    words = ("faster", "slower", "equivalent", "undecided")
    rows = []
    for scheme in schemes:
        for n in sides:
            usable = [
                np.asarray(g["values"], float)
                for g in groups
                if g["statistic"] in statistics and len(g["values"]) >= 2 * n
            ]
            if not usable:
                continue
            shares = {w: [] for w in words}
            for x in usable:
                splits = random_splits(x.size, n, count) if scheme == "random" else (
                    block_splits(x.size, n))  # fmt: skip
                said = [neighbour_verdict(x[b], x[a], design)[3] for a, b in splits]
                for w in words:
                    shares[w].append(said.count(w) / len(said))
            row = {"scheme": scheme, "n": n, "groups": len(usable)}
            row.update({w: float(np.mean(v)) for w, v in shares.items()})
            row["false"] = row["faster"] + row["slower"]
            rows.append(row)
    return rows


def markdown(rows: list[dict[str, Any]], methods: Sequence[str]) -> str:
    head = "| split | runs a side | groups | " + " | ".join(methods) + " |"
    lines = [head, "|---|---:|---:|" + "---:|" * len(methods)]
    for r in rows:
        cells = " | ".join(f"{r[m]:.3f}" for m in methods)
        lines.append(f"| {r['scheme']} | {r['n']} | {r['groups']} | {cells} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.diagnostics.ratio_coverage")
    sub = parser.add_subparsers(dest="command", required=True)
    c = sub.add_parser("collect")
    c.add_argument("out", type=Path)
    c.add_argument("sources", type=Path, nargs="+")
    r = sub.add_parser("report")
    r.add_argument("groups", type=Path)
    r.add_argument("--simulate", action="store_true")
    v = sub.add_parser("verdicts")
    v.add_argument("groups", type=Path)
    args = parser.parse_args(argv)
    if args.command == "verdicts":
        groups = json.loads(args.groups.read_text())["groups"]
        outcomes = ["faster", "slower", "equivalent", "undecided", "false"]
        # the steady steps a release history compares, then every per-run time the groups hold
        for kinds in (("steady_step_s",), ("steady_step_s", "median_epoch_s", "train_time_s")):
            print(f"\nrelease-history verdicts on A/A splits of {', '.join(kinds)}")
            print("(false = faster + slower: the same software on both sides)\n")
            print(markdown(verdict_table(groups, kinds), outcomes))
        return
    if args.command == "collect":
        groups = collect(args.sources)
        lines = ",\n".join(json.dumps(g) for g in groups)  # one group a line
        args.out.write_text('{"groups": [\n' + lines + "\n]}\n")
        sizes = [len(g["values"]) for g in groups]
        print(f"{len(groups)} groups, {sum(sizes)} runs, {min(sizes)} to {max(sizes)} a group")
        return
    groups = json.loads(args.groups.read_text())["groups"]
    print(f"A/A coverage of 1.0, nominal 0.95; {len(groups)} groups of real repeats\n")
    print(markdown(coverage_table(groups), list(METHODS)))
    print("\nwidth: median high / low over 20 random splits a group\n")
    print("| runs a side | " + " | ".join(METHODS) + " |")
    print("|---:|" + "---:|" * len(METHODS))
    for n in SIDES:
        cells = " | ".join(f"{median_width(groups, m, n):.2f}" for m in METHODS.values())
        print(f"| {n} | {cells} |")
    if args.simulate:
        print(f"\nsimulated, {SIM_DRAWS} A/A draws per n (process_noise)\n")
        print("| runs a side | " + " | ".join(METHODS) + " |")
        print("|---:|" + "---:|" * len(METHODS))
        for n in SIDES:
            cells = " | ".join(f"{simulated_coverage(m, n):.3f}" for m in METHODS.values())
            print(f"| {n} | {cells} |")


if __name__ == "__main__":
    main(sys.argv[1:])
