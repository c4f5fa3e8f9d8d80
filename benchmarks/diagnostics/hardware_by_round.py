"""Does the hardware effect's interval cover what it claims? Deciding sweeps, held out.

The first screen's hardware line (twinbench/launch/screen.py hardware_ratio) is each backend's
1-core steady step over its all-core one. It was a Welch interval over one sweep's workers
(stats.ratio_ci: independent processes, minutes apart); it is now paired by round (a deciding
sweep runs a round's 1-core and all-core pairs seconds apart; stats.units_ratio over the
rounds). This reads finished deciding sweeps and asks, of both forms:

- within a sweep: do its even rounds and its odd rounds agree (their difference against the
  two 95% half-widths added in quadrature, on the logs)? Valid intervals disagree in about 5%;
- between sweeps: does one sweep's estimate agree with another's, the same side (backend and
  allocator) on the same machine? Both forms claim only their sweep's minutes: a host phase
  between sweeps is not in them, and this says how often it shows;
- sweeps as units (analysis over several sweeps, stats.sessions_ratio on each sweep's rounds):
  does one half of the sweeps agree with the other, over every split?

    python -m benchmarks.diagnostics.hardware_by_round <sweep folder>... [--csv steps.csv]
    python -m benchmarks.diagnostics.hardware_by_round --from-csv steps.csv

`--csv` writes the steps it read (one row a worker), so the figures can be re-derived without
the sweep folders (measurements/2026-12-07/hardware-by-round/steps.csv).
"""

from __future__ import annotations

import argparse
import csv
import itertools
import json
import math
from collections.abc import Iterable
from pathlib import Path

import numpy as np

from twinbench import stats

FIELDS = ["sweep", "backend", "allocator", "cpus", "round", "steady_step_s"]


def read_sweeps(folders: Iterable[Path]) -> list[dict]:
    """One row a finished worker: its sweep, side, cores, round and median steady step."""
    rows = []
    for folder in folders:
        for path in sorted(Path(folder).glob("*/repeat-*/result.json")):
            r = json.loads(path.read_text())
            step = ((r.get("timing") or {}).get("steady_step_s") or {}).get("median")
            if r.get("status") != "ok" or not step:
                continue
            backend = (r.get("config") or {}).get("backend") or {}
            rows.append(
                {
                    "sweep": Path(folder).name,
                    "backend": r["backend"],
                    "allocator": backend.get("allocator", "default"),
                    "cpus": int(r["cpus"]),
                    "round": int(r["repeat"]),
                    "steady_step_s": float(step),
                }
            )
    return rows


def estimate(rows: list[dict], form: str) -> tuple[float, float] | None:
    """(log speed-up, the half-width of its 95% interval on the logs, as the screen prints it)
    of one side in one sweep, fewest over most cores: `welch` over all workers (stats.ratio_ci's
    t and degrees of freedom), `rounds` over the rounds that hold both (stats.units_ratio's t
    over at least 3 rounds)."""
    cores = sorted({r["cpus"] for r in rows})
    if len(cores) < 2:
        return None
    few = {r["round"]: r["steady_step_s"] for r in rows if r["cpus"] == cores[0]}
    most = {r["round"]: r["steady_step_s"] for r in rows if r["cpus"] == cores[-1]}
    if form == "welch":
        a, b = np.log(list(few.values())), np.log(list(most.values()))
        if a.size < 2 or b.size < 2:
            return None
        va, vb = a.var(ddof=1) / a.size, b.var(ddof=1) / b.size
        dof = (va + vb) ** 2 / (va**2 / (a.size - 1) + vb**2 / (b.size - 1))
        t = stats.t_quantile(0.975, max(float(dof), 1.0))
        return float(a.mean() - b.mean()), t * math.sqrt(va + vb)
    common = sorted(set(few) & set(most))
    logs = np.log([few[k] / most[k] for k in common])
    if logs.size < 3:
        return None
    t = stats.t_quantile(0.975, logs.size - 1)
    return float(logs.mean()), t * float(logs.std(ddof=1) / math.sqrt(logs.size))


def disagree(one: tuple[float, float], other: tuple[float, float]) -> bool:
    """Two estimates' difference outside the 95% half-width of a difference (the two
    half-widths added in quadrature)."""
    return abs(one[0] - other[0]) > math.hypot(one[1], other[1])


def report(rows: list[dict]) -> list[str]:
    sides = sorted({(r["backend"], r["allocator"]) for r in rows})
    sweeps = list(dict.fromkeys(r["sweep"] for r in rows))
    cell = {
        (s, side): [r for r in rows if r["sweep"] == s and (r["backend"], r["allocator"]) == side]
        for s in sweeps
        for side in sides
    }
    out = ["sweep  side  welch speed-up [95%]  rounds speed-up [95%] (rounds)"]
    for (s, side), members in cell.items():
        text = []
        for form in ("welch", "rounds"):
            e = estimate(members, form)
            text.append(
                "-" if e is None else
                f"{math.exp(e[0]):.3f} [{math.exp(e[0] - e[1]):.3f}, {math.exp(e[0] + e[1]):.3f}]"
            )  # fmt: skip
        if members:
            out.append(f"{s}  {side[0]} allocator={side[1]}  {text[0]}  {text[1]}")
    for form in ("welch", "rounds"):
        halves = [0, 0]
        for members in cell.values():
            even = estimate([r for r in members if r["round"] % 2 == 0], form)
            odd = estimate([r for r in members if r["round"] % 2 == 1], form)
            if even and odd:
                halves = [halves[0] + disagree(even, odd), halves[1] + 1]
        between = [0, 0]
        for side in sides:
            found = [e for s in sweeps if (e := estimate(cell[(s, side)], form))]
            for one, other in itertools.combinations(found, 2):
                between = [between[0] + disagree(one, other), between[1] + 1]
        out.append(
            f"{form}: even and odd rounds of one sweep disagree in {halves[0]} of {halves[1]}; "
            f"two sweeps disagree in {between[0]} of {between[1]} (valid 95% intervals: ~5%)"
        )
    out += units_halves(cell, sides, sweeps)
    return out


def units_halves(cell: dict, sides: list, sweeps: list[str]) -> list[str]:
    """Sweeps as units: every split of a side's sweeps into two halves, each half's
    stats.sessions_ratio over its sweeps' round ratios; how often the halves disagree."""
    out = []
    for side in sides:
        per_sweep = {}
        for s in sweeps:
            members = cell[(s, side)]
            cores = sorted({r["cpus"] for r in members})
            if len(cores) < 2:
                continue
            few = {r["round"]: r["steady_step_s"] for r in members if r["cpus"] == cores[0]}
            most = {r["round"]: r["steady_step_s"] for r in members if r["cpus"] == cores[-1]}
            ratios = [few[k] / most[k] for k in sorted(set(few) & set(most))]
            if ratios:
                per_sweep[s] = ratios
        names = sorted(per_sweep)
        if len(names) < 4:
            continue
        splits = bad = 0
        for left in itertools.combinations(names, len(names) // 2):
            right = [n for n in names if n not in left]
            found = []
            for half in (left, right):
                ratios = [x for n in half for x in per_sweep[n]]
                s = stats.sessions_ratio(ratios, [n for n in half for _ in per_sweep[n]])
                found.append((math.log(s.median), math.log(s.ci_high / s.ci_low) / 2))
            splits, bad = splits + 1, bad + disagree(*found)
        out.append(
            f"sweeps as units, {side[0]} allocator={side[1]}: {len(names)} sweeps, the two "
            f"halves disagree in {bad} of {splits} splits"
        )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sweeps", nargs="*", type=Path, help="deciding sweep folders")
    parser.add_argument("--csv", type=Path, help="write the steps read to this file")
    parser.add_argument("--from-csv", type=Path, help="read steps from a file --csv wrote")
    args = parser.parse_args(argv)
    if args.from_csv:
        with args.from_csv.open() as f:
            rows = [
                {**r, "cpus": int(r["cpus"]), "round": int(r["round"]),
                 "steady_step_s": float(r["steady_step_s"])}
                for r in csv.DictReader(f)
            ]  # fmt: skip
    else:
        rows = read_sweeps(args.sweeps)
    if args.csv:
        with args.csv.open("w", newline="") as f:
            writer = csv.DictWriter(f, fieldnames=FIELDS)
            writer.writeheader()
            writer.writerows(rows)
    print("\n".join(report(rows)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
