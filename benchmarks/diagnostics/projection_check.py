"""Does "about N pairs in all would decide" hold on pairs it did not see? Real units, held out.

    python -m benchmarks.diagnostics.projection_check FILE.json... [--series NAME] [--at 5 8 12]

An undecided verdict projects the pairs that would decide it (twinbench/confidence.py: the
decision rule run ahead at the spread seen so far, over means drawn within the observed mean's
uncertainty). This checks the projection against what later pairs actually did, beside the same
rule read at the observed mean alone. Each FILE is a deciding comparison's or A/A
campaign's JSON (`series[].wall_ratios`, as `twinbench aa` and the deciding sweep write them,
and its `design`; several files must share one design). Their units (pair log ratios) are pooled
per series name: each unit comes from
its own pair of processes, so within one series and machine they are exchangeable, and shuffling
them (seeded, `--orders` times) gives sequences longer than any one sequence ran. For each order
and each checkpoint k in `--at` where the sequence has not decided at any pair up to k (a live
comparison stops at its first decision), the projection N is
computed from the first k units alone; the units after k are the held-out data. Printed per
checkpoint: how many projections, how many the cap left without a figure, how many projected
more pairs than the pool holds (no held-out data reaches them), and of the rest the share that
decided by N pairs, the share decided by 2N (of those whose 2N the pool reaches), and the median
of (pairs it actually took) / N over the projections that decided within the pool.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from twinbench import confidence, sequential

DESIGN_KEYS = ("margin", "alpha", "min_pairs", "prior_precision")


def pooled_units(docs: list[dict[str, Any]], series: str | None) -> dict[str, np.ndarray]:
    """Log ratios per series name, every sequence of that name in every file pooled, in order."""
    found: dict[str, list[float]] = {}
    for doc in docs:
        for entry in doc.get("series", []):
            name = str(entry.get("series"))
            if series is None or name == series:
                found.setdefault(name, []).extend(float(r) for r in entry.get("wall_ratios", []))
    return {name: np.log(np.asarray(values)) for name, values in found.items() if values}


def design_of(doc: dict[str, Any]) -> sequential.Design:
    given = doc.get("design") or {}
    return sequential.load_design(**{k: given[k] for k in DESIGN_KEYS if k in given})


def at_the_mean(x: np.ndarray, d: sequential.Design) -> int | None:
    """The projection read at the observed mean alone (what verdicts printed before)."""
    return confidence.pairs_to_decide(float(x.mean()), float(x.std(ddof=1)), d)


PROJECTIONS: dict[str, Callable[[np.ndarray, sequential.Design], int | None]] = {
    "at the mean": at_the_mean,
    "with the mean's uncertainty (verdicts)": confidence.projected_pairs,
}


def check(
    units: np.ndarray,
    d: sequential.Design,
    at_k: list[int],
    orders: int,
    project: Callable[[np.ndarray, sequential.Design], int | None] = confidence.projected_pairs,
    seed: int = 0,
) -> dict[int, dict[str, Any]]:
    """Per checkpoint k: the projections `project` makes after k units and what the held-out
    units did."""
    rng = np.random.default_rng(seed)
    out: dict[int, dict[str, Any]] = {
        k: {"projections": 0, "capped": 0, "beyond": 0, "checked": 0, "by_n": 0,
            "checked_2n": 0, "by_2n": 0, "took_over_n": []}
        for k in at_k
    }  # fmt: skip
    for _ in range(orders):
        x = rng.permutation(units)
        # Where this order first decides (sequential.first_decisions: the rule a live
        # comparison runs); 0 where it never does within the pool.
        _, at = sequential.first_decisions(x, d)
        first = int(at[0]) or None
        for k in at_k:
            if k >= x.size or (first is not None and first <= k):
                continue  # decided by k: a live comparison had stopped, nothing projected
            row = out[k]
            row["projections"] += 1
            n = project(x[:k], d)
            if n is None:
                row["capped"] += 1
                continue
            if n > x.size:
                row["beyond"] += 1
                continue
            row["checked"] += 1
            row["by_n"] += first is not None and first <= n
            if 2 * n <= x.size:
                row["checked_2n"] += 1
                row["by_2n"] += first is not None and first <= 2 * n
            if first is not None:
                row["took_over_n"].append(first / n)
    for row in out.values():
        ratios = row.pop("took_over_n")
        row["median_took_over_n"] = float(np.median(ratios)) if ratios else None
    return out


def lines(name: str, n_units: int, result: dict[int, dict[str, Any]]) -> list[str]:
    text = [f"{name}: {n_units} units pooled"]
    for k, row in result.items():
        head = (
            f"  after {k:>2}: {row['projections']} projections ({row['capped']} past the cap, "
            f"{row['beyond']} beyond the {n_units} units)"
        )
        if not row["checked"]:
            text.append(head + ": none the held-out units can check")
            continue
        by_2n = f"{row['by_2n'] / row['checked_2n']:.0%}" if row["checked_2n"] else "-"
        median = row["median_took_over_n"]
        taken = "-" if median is None else f"{median:.2f}"
        text.append(
            f"{head}; of {row['checked']} checked, decided by N {row['by_n'] / row['checked']:.0%}"
            f", by 2N {by_2n}; pairs taken / N, median of those decided {taken}"
        )
    return text


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", type=Path, nargs="+")
    parser.add_argument("--series", help="only this series name (default: each)")
    parser.add_argument("--at", type=int, nargs="+", default=[5, 8, 12])
    parser.add_argument("--orders", type=int, default=2000)
    parser.add_argument("--json", type=Path, help="also write the figures here")
    args = parser.parse_args(argv)
    docs = []
    for path in args.files:
        try:
            docs.append(json.loads(path.read_text()))
        except (OSError, ValueError) as exc:
            print(f"projection_check: cannot read {path}: {exc}", file=sys.stderr)
            return 2
    designs = {design_of(doc) for doc in docs}
    if len(designs) > 1:
        print(
            "projection_check: the files were decided under different designs: pool only "
            "like with like",
            file=sys.stderr,
        )
        return 2
    (design,) = designs
    pools = pooled_units(docs, args.series)
    if not pools:
        print("projection_check: no series with wall_ratios in the files", file=sys.stderr)
        return 2
    figures: dict[str, dict[str, Any]] = {}
    for name, units in pools.items():
        for label, project in PROJECTIONS.items():
            found = check(units, design, sorted(args.at), args.orders, project)
            figures.setdefault(name, {})[label] = found
            print("\n".join(lines(f"{name}, projected {label}", units.size, found)))
    if args.json:
        args.json.write_text(json.dumps(figures, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
