"""Interleaved A/B measurements in fresh processes, and their paired summary.

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
from dataclasses import dataclass, field
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
    text = (
        f"{label}  ratio {r['median']:.3f} [{r['ci_low']:.3f}, {r['ci_high']:.3f}] "
        f"({r['confidence']:.0%}, {s['pairs']} pairs)  process CPU ratio {c['median']:.3f} "
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
        "steps (benchmarks/turn_pairs.py); sequential: one fresh process after the other "
        "(default: conf/decision/default.yaml)",
    )
    p.add_argument(
        "--budget-minutes",
        type=float,
        help="fit the whole table in about this long: each row gets an equal share of what is "
        "left and runs as many of its --pairs as its first pair says fit (at least one; what "
        "was trimmed is printed and kept in --out)",
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
    return args


@dataclass
class Row:
    label: str
    a: Callable[[], Sample]
    b: Callable[[], Sample]
    meta: dict[str, Any]
    # Pair i with both sides alive at once, taking turns (benchmarks/turn_pairs.py): (A, B).
    # None: the row's pairs are sequential, one fresh process after the other.
    in_turns: Callable[[int], tuple[Sample, Sample]] | None = None

    def pair(self, i: int, say: Callable[[str], None], of: int) -> tuple[Sample, Sample]:
        if self.in_turns is None:
            return interleave(self.a, self.b, i + 1, say, first=i, of=of)[0]
        a, b = self.in_turns(i)
        say(f"    pair {i + 1}/{of} (in turns): {a.epoch_s:.3f} s vs {b.epoch_s:.3f} s = "
            f"{a.epoch_s / b.epoch_s:.3f}")  # fmt: skip
        return a, b


def pairs_that_fit(requested: int, pair_s: float, share_s: float | None) -> int:
    """How many pairs of `pair_s` seconds a row may run in `share_s` (None: all requested)."""
    if share_s is None:
        return requested
    return max(1, min(requested, int(share_s // pair_s)))


def run_table(
    rows: list[Row],
    pairs: int,
    budget_minutes: float | None,
    say: Callable[[str], None] = print,
    now: Callable[[], float] = time.monotonic,
    design: sequential.Design | None = None,
) -> list[dict[str, Any]]:
    """Each row's pairs, measured until its decision is reached or its budget runs out, and
    their summary, printed as they come.

    After every pair the row's confidence sequence (conf/decision/default.yaml, twinbench/
    sequential.py) is updated; the row stops at the first pair where it decides (faster beyond
    the margin, slower beyond it, or equivalent within it): looking after each pair keeps its
    error rate. Otherwise it runs up to `pairs` pairs, or as many as its share of the budget
    allows, and says it is undecided at that budget. After the table's first pair the whole
    run's length is estimated from it (a first look, not a promise). With a budget each row,
    after its own first pair, gets an equal share of the time left; the record says what ended
    the row (decided, max_pairs or max_seconds) and keeps the pairs asked for.
    """
    design = design or sequential.load_design(max_seconds=None)
    start, results = now(), []
    for index, row in enumerate(rows):
        say(row.label)
        t0 = now()
        measured = [row.pair(0, say, pairs)]
        pair_s = now() - t0
        if index == 0:
            whole = pair_s * pairs * len(rows)
            say(
                f"  estimate: one pair took {pair_s:.0f} s; {len(rows)} rows x {pairs} pairs "
                f"would take about {whole / 60:.0f} min at most (a row stops once decided)"
                + (f" (budget {budget_minutes:g} min)" if budget_minutes is not None else "")
            )
        share = None
        if budget_minutes is not None:
            left = budget_minutes * 60 - (now() - start)
            share = (left + pair_s) / (len(rows) - index)  # this row's first pair counts in it
        n = pairs_that_fit(pairs, pair_s, share)
        if n < pairs:
            say(f"  budget: at most {n} of {pairs} pairs ({share / 60:.1f} min for this row, "
                f"{pair_s:.0f} s a pair)")  # fmt: skip
        stopped_by = "max_pairs" if n == pairs else "max_seconds"
        while not decided(measured, design) and len(measured) < n:
            measured.append(row.pair(len(measured), say, pairs))
        summary = summarise(measured, stopped_by, now() - t0, design)
        say(line(row.label, summary))
        results.append(
            {
                **row.meta,
                **summary,
                "pairing": "turns" if row.in_turns else "sequential",
                "pairs_requested": pairs,
                "trimmed": summary["decision"]["stopped_by"] == "max_seconds",
            }
        )
    return results


def decided(measured: list[tuple[Sample, Sample]], design: sequential.Design) -> bool:
    ratios = [a.epoch_s / b.epoch_s for a, b in measured]
    return sequential.decide_sequence(ratios, design).outcome != "undecided"


def write_out(path: Path | None, cpus: int, results: list[dict[str, Any]]) -> None:
    if path:
        path.write_text(json.dumps({"cpus": cpus, "results": results}, indent=2))
