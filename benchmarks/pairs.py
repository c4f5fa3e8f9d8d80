"""Interleaved A/B measurements in fresh processes (or, through benchmarks/turn_pairs.py, in
resident worker pairs), and their paired summary.

Shared by benchmarks/overhead.py (twinbench vs its bare loop), benchmarks/outside.py
(twinbench vs outside code) and benchmarks/before_after.py (twinbench at two commits). Each
measurement is one fresh process; A and B alternate as ABBA... so a slow minute on a shared
machine lands on both sides; the ratio of each pair is what is summarised (median with its
exact order-statistic interval, twinbench.stats.paired_ratio), beside each side's own spread
and a check for two modes among its processes (twinbench.stats.modes).
A table of such rows under one budget is benchmarks/rounds.py's.
"""

from __future__ import annotations

import json
import resource
import statistics
import subprocess
import sys
import tempfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from frameworks import allocator
from twinbench import sequential, stats
from twinbench.launch.machine_lock import measurement_lock
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


def under_allocator(cmd: list[str], mode: str) -> list[str]:
    """The other side's command under the same allocator as twinbench's: `mode`'s variables set
    by `env`, which execs the script, so the process timed is the script's own. A table
    comparing two loops under `retain` leaves out each process' own page-fault state, which
    moves a torch step by several percent either way between processes
    (docs/findings/2026-12-07-bare-loop-allocator.md)."""
    variables = allocator.environment(mode)
    return ["env", *(f"{k}={v}" for k, v in variables.items()), *cmd] if variables else cmd


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
