"""The speed table of docs/findings/ from the files benchmarks/outside.py and overhead.py write.

    python -m benchmarks.table --outside outside*.json --bare overhead*.json

One row per workload and backend, in the order of benchmarks/outside.yaml. A row measured by the
sequential engine (files that say their `pairing`) shows its decision: the ratio twinbench /
other side per epoch with its confidence sequence, and the outcome (twinbench faster or slower
beyond the margin, equivalent within it, or undecided at its budget), pairs and steps. Such a row
stopped where it decided, so it is never pooled with another run of itself: give one file per
row. Older files (fixed pair counts) show the median ratio, its exact interval and the verdict
against the 2% goal, a row measured more than once pooling its pairs. A workload missing from
the files says so: nothing is filled in by hand.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from benchmarks import outside, pairs
from frameworks import allocator
from twinbench import sequential


def rows_of(paths: list[Path]) -> dict[tuple[str, str], dict[str, Any]]:
    """(model, backend) -> its result; a row in several files pools their pairs."""
    found: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for path in paths:
        try:
            results = json.loads(path.read_text())["results"]
        except (OSError, ValueError, KeyError) as exc:
            raise SystemExit(f"{path}: not a file written by --out ({exc})") from None
        for r in results:
            found.setdefault((r["model"], r["backend"]), []).append(r)
    return {key: pooled(runs) for key, runs in found.items()}


def length_of(r: dict[str, Any]) -> int | None:
    return r.get("max_steps") or r.get("steps")


def pooled(runs: list[dict[str, Any]]) -> dict[str, Any]:
    """One row from every run of it: the pairs of all runs, summarised together."""
    if len(runs) == 1:
        return runs[0]
    first = runs[0]
    if any(r.get("pairing") for r in runs):
        raise SystemExit(
            f"{first['model']} on {first['backend']} is in {len(runs)} files: a row measured "
            "sequentially stopped where it decided, and pooling it with another run would not "
            "keep its error rate; give one file per row"
        )
    if len({length_of(r) for r in runs}) > 1:
        raise SystemExit(
            f"{first['model']} on {first['backend']} was measured at different lengths "
            f"({sorted(str(length_of(r)) for r in runs)} steps): give the files of one length"
        )
    samples = [
        (pairs.Sample(a, ac, ae), pairs.Sample(b, bc, be))
        for r in runs
        for a, b, ac, bc, ae, be in zip(
            r["a_epoch_s"], r["b_epoch_s"], r["a_cpu_s"], r["b_cpu_s"],
            r["a_epochs"], r["b_epochs"], strict=True,
        )
    ]  # fmt: skip
    row = {key: first[key] for key in ("model", "backend", "max_steps", "steps") if key in first}
    row.update(pairs.summarise(samples))
    row["runs"] = len(runs)
    row["trimmed"] = any(r.get("trimmed") for r in runs)
    return row


OUTCOME_WORDS = {
    "a_faster": "twinbench faster by more than {m}",
    "b_faster": "SLOWER by more than {m}",
    "equivalent": "equivalent within +-{m}",
}


def outcome_words(outcome: str, margin: float) -> str:
    """A decided outcome in the table's words ("undecided" for the rest)."""
    return OUTCOME_WORDS.get(outcome, "undecided").format(m=f"{margin:.0%}")


def row_margin(r: dict[str, Any]) -> float:
    """The margin a row of the sequential engine was decided at."""
    return float(r["decision"]["margin"])


def decided_cell(r: dict[str, Any], length: str) -> str:
    """A row of the sequential engine: its decision, interval and pairs."""
    d = sequential.Decision(**r["decision"])
    if d.outcome in OUTCOME_WORDS:
        outcome = outcome_words(d.outcome, d.margin)
    elif r.get("running"):  # read from a table still being measured (or one that was stopped)
        outcome = "undecided so far, its table still running or stopped"
    else:
        reach = "no margin" if d.resolvable_margin is None else f"+-{d.resolvable_margin:.1%}"
        shown = d.shown_difference()
        if shown is not None:  # the interval excludes 1, short of the margin
            side = "twinbench" if shown[0] == "a" else "the other side"
            reach += f"; {side} faster by at least {shown[1]:.1%}"
        outcome = f"undecided at its budget ({d.stopped_by}; resolves {reach})"
    interval = (
        f"[{d.ratio_low:.3f}, {d.ratio_high:.3f}]"
        if 0 < d.ratio_low <= d.ratio_high < float("inf")
        else "[no interval yet]"
    )
    if r["pairing"] == "resident":  # one unit a worker pair; its blocks, per training step
        return f"{d.ratio:.3f} {interval}, {outcome} ({d.pairs} resident worker pairs, {length})"
    return f"{d.ratio:.3f} {interval}, {outcome} ({d.pairs} pairs in {r['pairing']}, {length})"


def cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return "not measured"
    q = r["ratio"]
    steps = length_of(r)
    length = f"{steps} steps" if steps else "full epochs"
    if r.get("pairing") == "resident":
        length = f"{r['resident_blocks']} blocks of {r['turn_ticks']} steps a side, per step"
    if r.get("allocator", allocator.DEFAULT) != allocator.DEFAULT:  # files since 2026-12-07
        length += f", both sides under the {r['allocator']} allocator"
    if r.get("pairing"):
        return decided_cell(r, length)
    verdict = r["verdict"].split(":")[0].split(" (")[0].split(",")[0]
    trimmed = ", trimmed by the budget" if r.get("trimmed") else ""
    runs = f" from {r['runs']} runs" if r.get("runs", 1) > 1 else ""
    return (
        f"{q['median']:.3f} [{q['ci_low']:.3f}, {q['ci_high']:.3f}], {verdict} "
        f"({r['pairs']} pairs{runs}, {length}{trimmed})"
    )


def table(outside_rows: dict, bare_rows: dict) -> str:
    lines = [
        "| workload | backend | twinbench / outside code | twinbench / bare loop |",
        "|---|---|---|---|",
    ]
    for model in outside.MODELS:
        for backend in pairs.BACKENDS:
            key = (model, backend)
            lines.append(
                f"| {model} | {backend} | {cell(outside_rows.get(key))} | "
                f"{cell(bare_rows.get(key))} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--outside", nargs="*", type=Path, default=[], help="outside.py --out files")
    p.add_argument("--bare", nargs="*", type=Path, default=[], help="overhead.py --out files")
    args = p.parse_args(argv)
    if not args.outside and not args.bare:
        p.error("give --outside and/or --bare files")
    print(table(rows_of(args.outside), rows_of(args.bare)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
