"""Interleaved A/B measurements in fresh processes (or, through benchmarks/turn_pairs.py, in
resident worker pairs), and their paired summary.

Shared by benchmarks/overhead.py (twinbench vs its bare loop), benchmarks/outside.py
(twinbench vs outside code) and benchmarks/before_after.py (twinbench at two commits). Each
measurement is one fresh process; A and B alternate as ABBA... so a slow minute on a shared
machine lands on both sides; the ratio of each pair is what is summarised (median with its
exact order-statistic interval, twinbench.stats.paired_ratio), beside each side's own spread
and a check for two modes among its processes (twinbench.stats.modes).
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from twinbench import sequential, stats
from twinbench.launch.machine_lock import measurement_lock
from twinbench.machine import cpu
from twinbench.paths import REPO_ROOT

# Speed goal: twinbench at least 98% of the other side's speed, i.e. time ratio at most 1/0.98.
GOAL_SPEED = 0.98
BACKENDS = ["torch", "tensorflow"]


@dataclass
class Sample:
    """One process: median seconds per epoch after the first, and the process' CPU seconds."""

    epoch_s: float
    cpu_s: float
    epochs: list[float] = field(default_factory=list)
    turns: dict[str, Any] | None = None  # in a pair that took turns: turns taken, seconds waited


def run_process(
    cmd: Sequence[str], cwd: Path = REPO_ROOT, env: dict[str, str] | None = None
) -> tuple[str, float]:
    """Run `cmd` to completion; its stdout and the CPU time (user + system) it used.

    `env`: the whole environment of the process (None: this one's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(list(cmd), cwd=cwd, capture_output=True, text=True, env=env)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        tail = "\n".join(done.stderr.strip().splitlines()[-15:])
        raise RuntimeError(f"{' '.join(cmd)} failed with exit code {done.returncode}:\n{tail}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return done.stdout, cpu


def steady(epochs: Sequence[float]) -> float:
    """Median epoch after the first (tracing, compilation and cold caches land in epoch 1)."""
    if len(epochs) < 2:
        raise ValueError("need at least 2 epochs: the first is left out")
    return statistics.median(epochs[1:])


def twinbench(
    backend: str,
    model: str,
    cpus: int,
    epochs: int,
    max_steps: int | None,
    validation: bool = True,
    root: Path = REPO_ROOT,
    python: str = sys.executable,
    overrides: Sequence[str] = (),
    env: dict[str, str] | None = None,
    prefix: Sequence[str] = (),
) -> Sample:
    """One twinbench run (run.py, its own fresh worker) from the checkout at `root`.

    `validation`: compare whole epochs (validation included, the 2017 figure) or only their
    training part (for outside code that runs no validation).
    """
    with tempfile.TemporaryDirectory() as run_dir:
        cmd = [
            *prefix,  # e.g. a wrapper that changes the process before exec (bimodality.py)
            python,
            "run.py",
            *twinbench_overrides(backend, model, cpus, epochs, max_steps, overrides),
            f"hydra.run.dir={run_dir}",
        ]
        _, cpu = run_process(cmd, cwd=root, env=env)
        record = json.loads((Path(run_dir) / "result.json").read_text())
    if record["status"] != "ok":
        raise RuntimeError(f"twinbench {backend} {model} failed: {record.get('error')}")
    epochs_s = record["epoch_times_s"] if validation else record["train_times_s"]
    return Sample(steady(epochs_s), cpu, list(epochs_s))


def twinbench_overrides(
    backend: str,
    model: str,
    cpus: int,
    epochs: int,
    max_steps: int | None,
    overrides: Sequence[str] = (),
) -> list[str]:
    """run.py's overrides for one twinbench side of a row (sequential or in turns alike)."""
    return [
        f"backend={backend}",
        f"model={model}",
        f"cpus={cpus}",
        f"epochs={epochs}",
        "measure.peak_probe=false",  # a 1 s matmul probe outside training; not compared
        *([f"max_steps={max_steps}"] if max_steps else []),
        *overrides,
    ]


def measurement_lock_key() -> str | None:
    """The machine's measurement lock that every twinbench run holds (conf/config.yaml
    `measure.lock_file`; twinbench/launch/machine_lock.py)."""
    from omegaconf import OmegaConf

    from twinbench.paths import CONF_DIR

    return OmegaConf.select(OmegaConf.load(CONF_DIR / "config.yaml"), "measure.lock_file")


def json_line_process(
    cmd: Sequence[str], env: dict[str, str] | None = None
) -> tuple[dict[str, Any], float]:
    """Run a script that prints one JSON line last; that line and the process' CPU time.

    Under the measurement lock twinbench's own runs take: other twinbench runs on a shared
    machine wait for both sides of a pair alike, not only for twinbench's (without it, the other
    side ran beside them and came out several times slower)."""
    with measurement_lock(measurement_lock_key()):
        out, cpu = run_process(cmd, env=env)
    return json.loads(out.strip().splitlines()[-1]), cpu


def interleave(
    a: Callable[[], Sample],
    b: Callable[[], Sample],
    pairs: int,
    say: Callable[[str], None],
    first: int = 0,
    of: int | None = None,
) -> list[tuple[Sample, Sample]]:
    """Pairs `first` .. `pairs - 1`, A first in even pairs and B first in odd ones (printed as
    pair i/`of`, by default i/`pairs`)."""
    out = []
    for i in range(first, pairs):
        if i % 2 == 0:
            first = a()
            second = b()
            out.append((first, second))
        else:
            second = b()
            first = a()
            out.append((first, second))
        say(
            f"    pair {i + 1}/{of or pairs}: {first.epoch_s:.3f} s vs {second.epoch_s:.3f} s "
            f"= {first.epoch_s / second.epoch_s:.3f}"
        )
    return out


def verdict(ratio: stats.Summary) -> str:
    """A time ratio (A / B) against the speed goal, decided only beyond its interval."""
    limit = 1 / GOAL_SPEED
    if ratio.n < 2:
        return "one pair: undecided"
    if ratio.confidence < stats.CONFIDENCE:  # below six pairs [min, max] is all there is
        return f"undecided: {ratio.n} pairs give only a {ratio.confidence:.0%} interval"
    if ratio.ci_low > limit:
        return f"SLOWER than {GOAL_SPEED:.0%} of the other side's speed, beyond the interval"
    if ratio.ci_high <= limit:
        return f"meets the goal (>= {GOAL_SPEED:.0%} of the other side's speed)"
    return "undecided: the interval straddles the goal"


def summarise(
    pairs: list[tuple[Sample, Sample]],
    stopped_by: str = "max_pairs",
    elapsed_s: float | None = None,
    design: sequential.Design | None = None,
) -> dict[str, Any]:
    """Paired ratios of epoch time and of CPU time, each side's spread and modes, and the
    three-way decision on the pairs' ratios (`stopped_by`: what ended the row)."""
    a_t = [p[0].epoch_s for p in pairs]
    b_t = [p[1].epoch_s for p in pairs]
    wall = stats.paired_ratio(a_t, b_t)
    cpu = stats.paired_ratio([p[0].cpu_s for p in pairs], [p[1].cpu_s for p in pairs])
    return {
        "pairs": len(pairs),
        "a_epoch_s": a_t,
        "b_epoch_s": b_t,
        "a_epochs": [p[0].epochs for p in pairs],  # every epoch of every process, raw
        "b_epochs": [p[1].epochs for p in pairs],
        "a_cpu_s": [p[0].cpu_s for p in pairs],
        "b_cpu_s": [p[1].cpu_s for p in pairs],
        "a_turns": [p[0].turns for p in pairs],  # per pair in turns: turns taken, seconds waited
        "b_turns": [p[1].turns for p in pairs],
        "ratio": wall.as_dict(),
        "cpu_ratio": cpu.as_dict(),
        "verdict": verdict(wall),
        # The three-way decision of conf/decision/default.yaml on the same pairs (its confidence
        # sequence is valid at whatever pair count the row stopped): faster beyond the margin,
        # equivalent within it, or undecided with the margin these pairs resolve.
        "decision": sequential.decide_sequence(
            [x / y for x, y in zip(a_t, b_t, strict=True)],
            design or sequential.load_design(max_seconds=None),
            stopped_by=stopped_by,
            elapsed_s=elapsed_s,
        ).as_dict(),
        "a_modes": stats.modes(a_t),
        "b_modes": stats.modes(b_t),
    }


def line(label: str, s: dict[str, Any]) -> str:
    r, c = s["ratio"], s["cpu_ratio"]
    # in turns each side's CPU is read over the spans its epochs time; in sequential pairs it is
    # the whole process, start-up included
    cpu = "process CPU ratio" if s.get("pairing") in (None, "sequential") else "timed CPU ratio"
    text = (
        f"{label}  ratio {r['median']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] "
        f"({r['confidence']:.0%}, {s['pairs']} pairs)  {cpu} {c['median']:.3f} "
        f"[{c['ci_low']:.3f}, {c['ci_high']:.3f}]  {s['verdict']}"
    )
    if s.get("decision"):
        text += "\n    decision: " + sequential.Decision(**s["decision"]).line()
    for side in ("a", "b"):
        m = s[f"{side}_modes"]
        if m["multimodal"]:
            text += (
                f"\n    WARNING: side {side.upper()} has two modes across processes "
                f"(p={m['p_value']:.3f}): {m['low_mode']['n']} near "
                f"{m['low_mode']['median']:.3f} s, {m['high_mode']['n']} near "
                f"{m['high_mode']['median']:.3f} s; its median describes neither"
            )
    return text


# ---------------------------------------------------------------- a table of rows, in a budget


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
        "--budget-minutes",
        type=float,
        help="fit the whole table in about this long: the rows run in rounds (pair k of every "
        "undecided row, then pair k+1), and a row's next pair starts only while its last "
        "pair's length fits before the deadline (at least one pair a row; what was trimmed is "
        "printed and kept in --out)",
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


def run_table(
    rows: list[Row],
    pairs: int,
    budget_minutes: float | None,
    say: Callable[[str], None] = print,
    now: Callable[[], float] = time.monotonic,
    design: sequential.Design | None = None,
    progress: Callable[[list[dict[str, Any]]], None] | None = None,
) -> list[dict[str, Any]]:
    """Each row's pairs, measured in rounds until its decision is reached or the budget runs
    out, and their summary, printed as they come.

    Round k runs pair k of every row still undecided, so under a budget no row is starved by the
    rows before it: every row reaches the pair count where its confidence sequence first gives
    an interval (5 pairs) before any row runs a sixth, and a row that decides leaves its time to
    the rest. After every pair the row's confidence sequence (conf/decision/default.yaml,
    twinbench/sequential.py) is updated; the row stops at the first pair where it decides
    (faster beyond the margin, slower beyond it, or equivalent within it): looking after each
    pair keeps its error rate. Otherwise it runs up to `pairs` pairs, or as many as the budget
    allows: a row's next pair starts only if its last pair's length still fits before the
    deadline (every row runs at least one). The record says what ended each row (decided,
    max_pairs or max_seconds) and keeps the pairs asked for. After the first round the whole
    run's length is estimated from it (`estimate`). `progress` is given
    every row's summary so far after each pair (an interrupted table keeps what it measured).
    """
    design = design or sequential.load_design(max_seconds=None)
    start = now()
    deadline = None if budget_minutes is None else start + budget_minutes * 60
    measured: list[list[tuple[Sample, Sample]]] = [[] for _ in rows]
    seconds = [0.0] * len(rows)
    last_pair_s = [0.0] * len(rows)
    ended: list[str | None] = [None] * len(rows)  # why a row stopped; None while it runs

    def summary(i: int) -> dict[str, Any]:
        s = summarise(measured[i], ended[i] or "max_pairs", seconds[i], design)
        return {
            **rows[i].meta,
            **s,
            "pairing": rows[i].pairing,
            "pairs_requested": pairs,
            "trimmed": s["decision"]["stopped_by"] == "max_seconds",
            "running": ended[i] is None,
        }

    for k in range(pairs):
        for i, row in enumerate(rows):
            if ended[i] is not None:
                continue
            if deadline is not None and k > 0 and now() + last_pair_s[i] > deadline:
                ended[i] = "max_seconds"
                left = max(0.0, deadline - now())
                say(f"{row.label}: budget spent, stops at {k} of {pairs} pairs "
                    f"({left:.0f} s left, {last_pair_s[i]:.0f} s a pair)")  # fmt: skip
                say(line(row.label, summary(i)))
                continue
            say(row.label + (f" (round {k + 1})" if k else ""))
            t0 = now()
            measured[i].append(row.pair(k, say, pairs))
            last_pair_s[i] = now() - t0
            seconds[i] += last_pair_s[i]
            if k == 0 and i == len(rows) - 1:
                say(estimate(sum(last_pair_s), len(rows), pairs, budget_minutes, design))
            now_decided = decided(measured[i], design)
            if now_decided or k + 1 == pairs:
                ended[i] = "decided" if now_decided else "max_pairs"
                say(line(row.label, summary(i)))
            if progress is not None:
                progress([summary(j) for j in range(len(rows)) if measured[j]])
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


def decided(measured: list[tuple[Sample, Sample]], design: sequential.Design) -> bool:
    ratios = [a.epoch_s / b.epoch_s for a, b in measured]
    return sequential.decide_sequence(ratios, design).outcome != "undecided"


def write_out(path: Path | None, cpus: int, results: list[dict[str, Any]]) -> None:
    """The table's pairs so far as JSON (rows still `running` are marked so); written whole to
    a temporary file and renamed, so a kill or a full disk never leaves half a file."""
    if path:
        partial = path.with_name(path.name + ".partial")
        partial.write_text(json.dumps({"cpus": cpus, "results": results}, indent=2))
        partial.replace(path)
