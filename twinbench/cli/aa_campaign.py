"""A/A campaign: how often a deciding design wrongly calls one side faster, on real runs.

    twinbench aa --sequences 40 --out aa.json                  # resident, mlp, every core
    twinbench aa --backend torch --cpus 1 --sequences 40 --budget-s 165 --out aa-cpus1.json
    twinbench aa --allocator retain --sequences 40 --out aa-retain.json   # both halves retain

Each sequence is one deciding series as a comparison runs it (twinbench/launch/decide.py): the
same configuration on both sides, unit after unit until the confidence sequence decides or the
budget (--budget-s of measuring, the design's max_pairs) is spent. With `--pairing resident` (the
default here: the design this campaign exists to check) a unit is one resident worker pair, fresh
workers for every unit, so the restarts are in what is checked; with `--pairing turns` a unit is
a pair of fresh runs in turns. Since A and B are the same, "A faster" or "B faster" is a false
decision; "equivalent" and "undecided" are not. The JSON summary holds every sequence's units and
outcome and the false-decision rate with its 95% Clopper-Pearson upper bound, which should be at
or below alpha (5%) for the design to be valid here. 40 sequences take an hour or more: run it on
a machine nothing else is timing. Exit status 0, or 2 for bad input.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from scipy import stats as scipy_stats

from twinbench.cli import calibrate
from twinbench.config.checks import check_run_options, fail
from twinbench.config.folders import ready_out_file
from twinbench.config.spec import ConfigError
from twinbench.launch import machine_lock, together
from twinbench.launch.decide import Series
from twinbench.launch.resident import Unit
from twinbench.sequential import Design, load_design

SUMMARY = "A/A campaign: false-decision rate of a deciding design on real runs (JSON summary)"
FALSE = ("a_faster", "b_faster")  # under A/A, any "faster" verdict is wrong


def add_arguments(parser: argparse.ArgumentParser) -> None:
    calibrate.add_workload_arguments(parser)  # as calibrate spells them
    parser.set_defaults(pairing="resident")
    parser.add_argument("--sequences", type=int, default=40, help="A/A sequences (default 40)")
    parser.add_argument(
        "--budget-s", type=float, default=165.0,
        help="seconds of units per sequence (default 165: one core count's share of README "
        "command 1's 330 s)",
    )  # fmt: skip
    parser.add_argument("--out", type=Path, required=True, help="the JSON summary")
    parser.add_argument(
        "--resume", action="store_true",
        help="keep the sequences --out already holds (same configuration and design) and run "
        "only the rest: a campaign is written after every sequence, so one cut short goes on",
    )  # fmt: skip


def upper_bound(false: int, sequences: int, level: float = 0.95) -> float:
    """One-sided Clopper-Pearson upper bound on the false-decision rate."""
    if false >= sequences:
        return 1.0
    return float(scipy_stats.beta.ppf(level, false + 1, sequences - false))


def one_sequence(
    next_unit: Callable[[int], Unit | None],
    design: Design,
    now: Callable[[], float] = time.monotonic,
    lock: str | None = None,
) -> tuple[Series, list[int]]:
    """Units from `next_unit(i)` (None: a pair with no unit) into one series until it is
    done. Each unit takes the measurement `lock` before its seconds start, as a deciding
    sweep's pair does: a wait for another run is not spent from the sequence's budget (an A/A
    sequence cut short by waiting would count as one more that did not decide falsely)."""
    series = Series("A/A", design, design.max_pairs)
    while not series.done:
        with machine_lock.measurement_lock(lock), machine_lock.held_for(lock):
            start = now()
            unit = next_unit(len(series.ratios["wall"]) + series.incomplete)
            seconds = now() - start
        ratios = None if unit is None else unit.ratios
        series.add_unit(["A", "B"], ratios, 0 if unit is None else unit.rounds, seconds)
    return series, series.rounds


def summary(series: list[dict[str, Any]], design: Design, about: dict[str, Any]) -> dict[str, Any]:
    """The campaign's JSON from its sequences (Series.as_dict())."""
    outcomes = [(s["decision"] or {}).get("outcome", "undecided") for s in series]
    false = sum(o in FALSE for o in outcomes)
    return {
        **about,
        "design": design.__dict__,
        "described": design.described(),
        "sequences": len(series),
        "outcomes": {o: outcomes.count(o) for o in sorted(set(outcomes))},
        "false_decisions": false,
        "false_decision_rate": false / len(series) if series else None,
        "false_decision_upper_95": upper_bound(false, len(series)) if series else None,
        "alpha": design.alpha,
        "series": series,
    }


def resumed(out: Path, design: Design, about: dict[str, Any]) -> list[dict[str, Any]]:
    """The sequences an earlier campaign of the same configuration and design left in `out`;
    one line and exit 2 where `out` holds another campaign (its sequences would mix)."""
    if not out.exists():
        return []
    try:
        body = json.loads(out.read_text())
    except (OSError, json.JSONDecodeError) as err:
        fail(f"--resume: {out} is not a campaign's JSON ({err})")
    theirs = {k: body.get(k) for k in about} | {"design": body.get("design")}
    ours = about | {"design": json.loads(json.dumps(design.__dict__))}
    if theirs != ours:
        differ = sorted(k for k in ours if theirs.get(k) != ours[k])
        fail(f"--resume: {out} holds another campaign (differs in {', '.join(differ)})")
    return list(body.get("series") or [])


def run(args: argparse.Namespace) -> int:
    if args.sequences < 1:
        fail(f"--sequences must be at least 1, got {args.sequences}")
    if args.budget_s <= 0:
        fail(f"--budget-s must be positive, got {args.budget_s}")
    if args.pairing not in ("resident", "turns"):
        fail(f"--pairing {args.pairing}: the campaign runs resident or turns units")
    check_run_options([[*calibrate.run_overrides(args), f"hydra.run.dir={tempfile.gettempdir()}"]])
    try:  # before the first sequence: the summary is written after each one
        ready_out_file(args.out)
    except ConfigError as exc:
        fail(str(exc))
    design = dataclasses.replace(
        load_design(pairing=args.pairing), max_seconds=args.budget_s, total_seconds=None
    )
    about = {"backend": args.backend, "model": args.model, "cpus": args.cpus}
    about |= {"allocator": args.allocator}  # its sequences and another allocator's do not mix
    print(
        f"aa: {args.backend} {args.model} against itself, {args.sequences} sequences of "
        f"{design.described()['name']}, {args.budget_s:g} s each, {args.allocator} allocator",
        flush=True,
    )
    done = resumed(args.out, design, about) if args.resume else []
    lock = together.lock_key(calibrate.composed(args))
    if done:
        print(f"  resuming: {len(done)} sequence(s) already in {args.out}", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(len(done), args.sequences):
            folder = Path(tmp) / f"sequence-{k}"

            def next_unit(i: int, folder: Path = folder) -> Unit | None:
                if args.pairing == "resident":
                    return calibrate.resident_unit(args, folder, design, i)
                a, b = calibrate.pair_in_turns(args, folder, design, i)
                if not (a.get("wall") and b.get("wall")):
                    return None
                ratios = {m: a[m] / b[m] for m in ("wall", "cpu") if a.get(m) and b.get(m)}
                return Unit(ratios, 0)

            series, _ = one_sequence(next_unit, design, lock=lock)
            if not series.ratios["wall"]:
                # Every worker pair failed: not an A/A sequence at all, and counting it would
                # dilute the false-decision rate; whatever broke them breaks the next one too.
                fail(
                    f"sequence {k + 1}: no worker pair completed ({series.incomplete} failed); "
                    f"stopping, {len(done)} sequence(s) kept in {args.out} (--resume goes on)",
                    code=1,
                )
            done.append(series.as_dict())
            print(f"  sequence {k + 1}/{args.sequences}: {series.line()}", flush=True)
            args.out.write_text(json.dumps(summary(done, design, about), indent=1))
    body = summary(done, design, about)
    print(
        f"aa: {body['false_decisions']} false decision(s) in {body['sequences']} sequences "
        f"(rate {body['false_decision_rate']:.1%}, 95% upper bound "
        f"{body['false_decision_upper_95']:.1%}; alpha {design.alpha:.0%}); {args.out}",
        flush=True,
    )
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="twinbench aa", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    raise SystemExit(main())
