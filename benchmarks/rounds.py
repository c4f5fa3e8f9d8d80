"""A table of rows (a workload and a backend each, twinbench against another side), measured
pair by pair in rounds under one budget, each row stopping where its decision is reached.

Shared by benchmarks/outside.py (twinbench vs outside code) and benchmarks/overhead.py
(twinbench vs its bare loop): their common command line, the rows, the rounds and the JSON
file they rewrite after every pair. How one pair is measured and summarised is
benchmarks/pairs.py's.

Under a budget the rounds go first to the rows that can decide in it. Once a row has the pairs
its confidence sequence needs for an interval, its pairs project how many more would likely
decide it (twinbench/confidence.py, at conf/decision/default.yaml's `reach_quantile`), and a row
whose projected seconds do not fit in what is left beside the rows nearer their decision sits
out the round (`within_reach`). It comes back when rows before it decide and leave their time.
Each row's confidence sequence is valid at whatever pair it is read, so choosing which rows run
next from the pairs so far leaves every row's error rate as it is. `--even-rounds` keeps the
plain rounds.
"""

from __future__ import annotations

import argparse
import json
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from benchmarks.pairs import BACKENDS, Sample, interleave, line, summarise
from frameworks import allocator
from twinbench import sequential
from twinbench.config.folders import ready_out_file
from twinbench.config.spec import ConfigError
from twinbench.launch.machine_lock import held_for, measurement_lock
from twinbench.machine import cpu


def arguments(
    description: str, models: list[str], choices: list[str] | None, pairs: int, epochs: int
) -> argparse.ArgumentParser:
    """The command line outside.py and overhead.py share; each adds its own arguments."""
    p = argparse.ArgumentParser(
        description=description, formatter_class=argparse.RawTextHelpFormatter
    )
    p.add_argument("--models", nargs="+", default=models, choices=choices)
    p.add_argument("--backends", nargs="+", default=BACKENDS, choices=BACKENDS)
    p.add_argument("--pairs", type=int, default=pairs, help="interleaved pairs per row")
    p.add_argument("--epochs", type=int, default=epochs, help="per process; the first is left out")
    p.add_argument("--cpus", type=int, default=len(cpu.allowed_cpus()))
    p.add_argument("--out", type=Path, help="write every pair's figures to this JSON file")
    p.add_argument(
        "--pairing",
        choices=sequential.PAIRINGS,
        default=sequential.load_design().pairing,
        help="turns: both sides of a pair alive at once on the same cores, taking turns of a few "
        "steps (benchmarks/turn_pairs.py); sequential: one fresh process after the other; "
        "resident: a worker pair trains a warm-up turn and then blocks in turns, compared per "
        "training step, one unit a worker pair (start-up, warm-up and validation not seen) "
        "(default: conf/decision/default.yaml)",
    )
    p.add_argument(
        "--blocks",
        nargs="+",
        default=[],
        metavar="K | MODEL=K",
        help="with --pairing resident: blocks a side per worker pair, K for every model, "
        "MODEL=K for one (default: resident_blocks of conf/decision/default.yaml)",
    )
    p.add_argument(
        "--allocator",
        choices=allocator.MODES,
        default=allocator.DEFAULT,
        help="glibc's allocator on BOTH sides of every row (frameworks/allocator.py): default "
        "as it comes; retain keeps freed large blocks, so neither process' page-fault state "
        "enters the ratio (docs/findings/2026-12-07-bare-loop-allocator.md)",
    )
    p.add_argument(
        "--budget-minutes",
        type=float,
        help="fit the whole table in about this long: the rows run in rounds (pair k of every "
        "undecided row, then pair k+1), and a row's next pair starts only while its last "
        "pair's length fits before the deadline (at least one pair a row; what was trimmed is "
        "printed and kept in --out); once a row has an interval, a round runs only the rows "
        "whose projected pairs fit in what is left, nearest their decision first",
    )
    p.add_argument(
        "--even-rounds",
        action="store_true",
        help="with --budget-minutes: every undecided row runs every round, however far from "
        "its decision (the rounds before 2026-12-06)",
    )
    return p


def parse(p: argparse.ArgumentParser, argv: list[str] | None) -> argparse.Namespace:
    args = p.parse_args(argv)
    if args.epochs < 2:
        p.error("--epochs must be at least 2: the first epoch is left out")
    if args.pairs < 1:
        p.error("--pairs must be at least 1")
    if args.budget_minutes is not None and args.budget_minutes <= 0:
        p.error("--budget-minutes must be a positive number of minutes")
    if args.blocks and args.pairing != "resident":
        p.error("--blocks sizes resident worker pairs: give it with --pairing resident")
    if args.out is not None:  # written after every round: a bad one would fail a round in
        try:
            ready_out_file(args.out)
        except ConfigError as exc:
            p.error(str(exc))
    return args


def resident_designs(
    p: argparse.ArgumentParser,
    args: argparse.Namespace,
    design: sequential.Design,
    known: list[str],
) -> dict[str, sequential.Design]:
    """model -> the design of its resident worker pairs (`--blocks` sizes them, naming any of
    the `known` models; the rest is conf/decision/default.yaml's), for every model of
    `args.models`."""
    try:
        caps = step_caps(args.blocks, known, "--blocks")
    except ValueError as e:
        p.error(str(e))
    return {
        m: replace(
            design,
            pairing="resident",
            resident_blocks=caps.get(m, caps.get("*", design.resident_blocks)),
        )
        for m in args.models
    }


def compared(pairing: str, per_epoch: str) -> str:
    """What a table's ratio compares under `pairing`, for its first line."""
    if pairing == "resident":
        return "seconds per training step over resident worker pairs' blocks"
    return f"{per_epoch} after the first"


def allocator_words(mode: str) -> str:
    """The table's first line on its allocator, where it is not glibc's default."""
    return "" if mode == allocator.DEFAULT else f", both sides under the {mode} allocator"


def resident_meta(design: sequential.Design) -> dict[str, Any]:
    """What a resident row keeps of its design: every worker pair's warm-up and blocks."""
    return {
        "resident_blocks": design.resident_blocks,
        "turn_ticks": design.turn_ticks,
        "warmup_ticks": design.warmup_ticks,
        "compared": "seconds per training step",
    }


def step_caps(items: list[str], models: list[str], flag: str = "--max-steps") -> dict[str, int]:
    """A steps option's items as {model: steps}, "*" for the bare number that caps every model."""
    caps: dict[str, int] = {}
    for item in items:
        model, _, value = item.rpartition("=")
        if model and model not in models:
            raise ValueError(f"{flag} {item}: no workload {model!r} (one of {models})")
        if not value.isdigit() or int(value) < 1:
            raise ValueError(f"{flag} {item}: steps must be a positive whole number")
        caps[model or "*"] = int(value)
    return caps


@dataclass
class Row:
    label: str
    a: Callable[[], Sample]
    b: Callable[[], Sample]
    meta: dict[str, Any]
    # Pair i with both sides alive at once, taking turns (benchmarks/turn_pairs.py): (A, B).
    # None: the row's pairs are sequential, one fresh process after the other.
    in_turns: Callable[[int], tuple[Sample, Sample]] | None = None
    # How `in_turns` pairs them: "turns" (two fresh runs, epochs compared) or "resident" (a
    # worker pair's blocks, seconds per training step compared; one unit a pair).
    together: str = "turns"

    @property
    def pairing(self) -> str:
        return self.together if self.in_turns is not None else "sequential"

    def pair(self, i: int, say: Callable[[str], None], of: int) -> tuple[Sample, Sample]:
        if self.in_turns is None:
            return interleave(self.a, self.b, i + 1, say, first=i, of=of)[0]
        a, b = self.in_turns(i)
        if self.together == "resident":
            say(f"    worker pair {i + 1}/{of} (resident): {a.epoch_s * 1e3:.2f} ms vs "
                f"{b.epoch_s * 1e3:.2f} ms a step = {a.epoch_s / b.epoch_s:.3f}")  # fmt: skip
            return a, b
        say(f"    pair {i + 1}/{of} (in turns): {a.epoch_s:.3f} s vs {b.epoch_s:.3f} s = "
            f"{a.epoch_s / b.epoch_s:.3f}")  # fmt: skip
        return a, b


def within_reach(needs: dict[int, tuple[int | None, float]], left_s: float) -> set[int]:
    """The rows to run in the next round, from each undecided row's projection: {row: (more
    pairs that would likely decide it, None where no budget would; seconds a pair)}.

    Nearest first: rows are taken in order of the seconds their projected pairs cost, while the
    seconds of all taken fit in `left_s` (in rounds, the last of them finishes when all their
    pairs are paid). Where none fits, every row with a projection runs (the projection is a
    quantile, and a lucky row may still decide); where no row has one, all run, narrowing every
    interval."""
    cost = {i: (more * pair_s if more is not None else None) for i, (more, pair_s) in needs.items()}
    finite = sorted((c, i) for i, c in cost.items() if c is not None)
    taken: set[int] = set()
    spent = 0.0
    for c, i in finite:
        if spent + c > left_s:
            break
        taken.add(i)
        spent += c
    if taken:
        return taken
    return {i for _, i in finite} or set(needs)


def run_table(
    rows: list[Row],
    pairs: int,
    budget_minutes: float | None,
    say: Callable[[str], None] = print,
    now: Callable[[], float] = time.monotonic,
    design: sequential.Design | None = None,
    progress: Callable[[list[dict[str, Any]]], None] | None = None,
    even_rounds: bool = False,
    lock: str | None = None,
) -> list[dict[str, Any]]:
    """Each row's pairs, measured in rounds until its decision is reached or the budget runs
    out, and their summary, printed as they come.

    A round runs the next pair of every row still undecided, so under a budget no row is starved
    by the rows before it: every row reaches the pair count where its confidence sequence first
    gives an interval (5 pairs) before any row runs a sixth, and a row that decides leaves its
    time to the rest. From then on, under a budget, a round runs only the rows within reach
    (`within_reach`; all of them with `even_rounds`). After every pair the row's confidence
    sequence (conf/decision/default.yaml, twinbench/sequential.py) is updated; the row stops at
    the first pair where it decides (faster beyond the margin, slower beyond it, or equivalent
    within it): looking after each pair keeps its error rate. Otherwise it runs up to `pairs`
    pairs, or as many as the budget allows: a row's next pair starts only if its last pair's
    length still fits before the deadline (every row runs at least one). The record says what
    ended each row (decided, max_pairs or max_seconds), the pairs asked for and the rounds it
    sat out. After the first round the whole run's length is estimated from it (`estimate`).
    `progress` is given every row's summary so far after each pair (an interrupted table keeps
    what it measured). A pair whose two sides run in this process (in turns, resident) takes
    the measurement `lock` before its clock starts, and a wait for another run moves the
    deadline: neither a row's seconds nor the table's budget are spent waiting.
    """
    design = design or sequential.load_design(max_seconds=None)
    start = now()
    deadline = None if budget_minutes is None else start + budget_minutes * 60
    measured: list[list[tuple[Sample, Sample]]] = [[] for _ in rows]
    seconds = [0.0] * len(rows)
    last_pair_s = [0.0] * len(rows)
    ended: list[str | None] = [None] * len(rows)  # why a row stopped; None while it runs
    sat_out = [0] * len(rows)  # rounds a row sat out, out of reach
    # what the rounds' triage projects with: the likely count, not the verdict's safe one
    reach = replace(design, projection_quantile=design.reach_quantile)

    def summary(i: int) -> dict[str, Any]:
        s = summarise(measured[i], ended[i] or "max_pairs", seconds[i], design)
        return {
            **rows[i].meta,
            **s,
            "pairing": rows[i].pairing,
            "pairs_requested": pairs,
            "trimmed": s["decision"]["stopped_by"] == "max_seconds",
            "rounds_out_of_reach": sat_out[i],
            "running": ended[i] is None,
        }

    def pair_s(i: int) -> float:
        return seconds[i] / len(measured[i]) if measured[i] else 0.0

    def this_round(running: list[int]) -> set[int]:
        if deadline is None or even_rounds:
            return set(running)
        need = design.first_interval_pairs
        young = {i for i in running if len(measured[i]) < need}
        # what the young rows' first intervals will cost, at their pairs' seconds so far
        left = deadline - now() - sum((need - len(measured[i])) * pair_s(i) for i in young)
        needs = {}
        for i in set(running) - young:
            d = sequential.decide_sequence(ratios_of(measured[i]), reach)
            more = None if d.pairs_to_decide is None else max(1, d.pairs_to_decide - d.pairs)
            needs[i] = (more, pair_s(i))
        chosen = within_reach(needs, left) if needs else set()
        for i in sorted(set(needs) - chosen):
            if not sat_out[i]:
                more, each_s = needs[i]
                said = (
                    "no budget up to the projection's cap would decide it"
                    if more is None
                    else f"its projection's median is {more} more pairs ({more * each_s / 60:.0f}"
                    " min)"
                )
                say(f"{rows[i].label}: out of reach for now: {said}; its rounds go to rows "
                    f"nearer their decision ({max(0.0, left) / 60:.0f} min left)")  # fmt: skip
            sat_out[i] += 1
        return young | chosen

    first_round = True
    while running := [i for i in range(len(rows)) if ended[i] is None]:
        for i in sorted(this_round(running)):
            row, k = rows[i], len(measured[i])
            if deadline is not None and k > 0 and now() + last_pair_s[i] > deadline:
                ended[i] = "max_seconds"
                left = max(0.0, deadline - now())
                say(f"{row.label}: budget spent, stops at {k} of {pairs} pairs "
                    f"({left:.0f} s left, {last_pair_s[i]:.0f} s a pair)")  # fmt: skip
                say(line(row.label, summary(i)))
                continue
            say(row.label + (f" (round {k + 1})" if k else ""))
            held = lock if row.pairing != "sequential" else None  # its processes take their own
            asked = now()
            with measurement_lock(held), held_for(held):
                if deadline is not None:
                    deadline += now() - asked
                t0 = now()
                measured[i].append(row.pair(k, say, pairs))
                last_pair_s[i] = now() - t0
            seconds[i] += last_pair_s[i]
            now_decided = decided(measured[i], design)
            if now_decided or k + 1 == pairs:
                ended[i] = "decided" if now_decided else "max_pairs"
                say(line(row.label, summary(i)))
            if progress is not None:
                progress([summary(j) for j in range(len(rows)) if measured[j]])
        if first_round:
            say(estimate(sum(last_pair_s), len(rows), pairs, budget_minutes, design))
            first_round = False
    return [summary(i) for i in range(len(rows)) if measured[i]]


def estimate(
    round_s: float, rows: int, pairs: int, budget_minutes: float | None, design: sequential.Design
) -> str:
    """One line after the first round: how long all the pairs asked for would take, and, under
    a budget, how many rounds it allows, with a warning when that is fewer than the pairs a
    row's confidence sequence needs to be finite (those rows would end without an interval).

    From the whole round, not its first pair: rows differ in cost by 10x and more, so one
    cheap row's pair would promise a table far shorter than it is."""
    text = (
        f"  estimate: the first round (one pair of each of the {rows} rows) took "
        f"{round_s / 60:.1f} min; {pairs} rounds would take about {round_s * pairs / 60:.0f} min "
        "at most (a row stops once decided)"
    )
    if budget_minutes is None or round_s <= 0:
        return text
    rounds = int(budget_minutes * 60 // round_s)
    text += f"; the budget ({budget_minutes:g} min) allows about {rounds} rounds"
    need = design.first_interval_pairs
    if rounds < min(need, pairs):
        text += (
            f", fewer than the {need} pairs a row needs for an interval: give about "
            f"{need * round_s / 60:.0f} min, or fewer rows"
        )
    return text


def ratios_of(measured: list[tuple[Sample, Sample]]) -> list[float]:
    """A row's pair ratios A / B, in the order measured."""
    return [a.epoch_s / b.epoch_s for a, b in measured]


def decided(measured: list[tuple[Sample, Sample]], design: sequential.Design) -> bool:
    return sequential.decide_sequence(ratios_of(measured), design).outcome != "undecided"


def write_out(path: Path | None, cpus: int, results: list[dict[str, Any]]) -> None:
    """The table's pairs so far as JSON (rows still `running` are marked so); written whole to
    a temporary file and renamed, so a kill or a full disk never leaves half a file."""
    if path:
        partial = path.with_name(path.name + ".partial")
        partial.write_text(json.dumps({"cpus": cpus, "results": results}, indent=2))
        partial.replace(path)
