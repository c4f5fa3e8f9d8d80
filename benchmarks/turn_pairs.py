"""The speed table's pairs in turns: one twinbench run and one run of the code it is compared
with (an outside script, or the bare loop), both alive at once on the same cores, taking turns.

Sequential pairs, one process after the other, land in different phases of this host's memory
bandwidth and their ratios spread by 20-40% (docs/findings/2026-12-01-sequential-decisions.md).
Here the pair is run as the deciding sweep runs its pairs (twinbench/launch/turns.py): twinbench's
side is a real run (its fresh worker, budget set before the framework loads and read back, its own
record) and the other side is its script, whose epoch clock (benchmarks/ports/harness.py
TurnClock) speaks the same protocol. Blocks of a few training steps alternate ABBA, so both
sides' steps fall in the same seconds; each side's epoch times and CPU leave its waits out.
"""

from __future__ import annotations

import json
import os
import subprocess
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmarks.pairs import Sample, steady
from twinbench.launch import decide, resident, together, turns
from twinbench.launch import runner as launch
from twinbench.paths import CONF_DIR, REPO_ROOT
from twinbench.sequential import Design


def twinbench_body(overrides: list[str]) -> dict[str, Any]:
    """run.py's resolved config for these overrides, as Hydra composes it for a run."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=overrides)
    return OmegaConf.to_container(cfg, resolve=True)  # type: ignore[return-value]


def run_script(cmd: list[str]) -> dict[str, Any]:
    """The other side's process, started as this thread's side of the pair: its last JSON line
    (harness.report). Its own session, so that stopping the pair kills it with all it started."""
    side = turns.current()
    if side is None:
        raise RuntimeError("run_script runs as one side of a pair (together.run_halves)")
    env, fds = side.spawn_env()
    proc = subprocess.Popen(
        cmd, cwd=REPO_ROOT, env={**os.environ, **env}, pass_fds=fds, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    side.spawned(proc)
    out, err = proc.communicate()
    if proc.returncode != 0:
        tail = "\n".join(err.strip().splitlines()[-15:])
        raise RuntimeError(f"{' '.join(cmd)} failed with exit code {proc.returncode}:\n{tail}")
    return json.loads(out.strip().splitlines()[-1])


def twinbench_sample(record: dict[str, Any], validation: bool) -> Sample:
    if record.get("status") != "ok":
        raise RuntimeError(f"twinbench {record.get('model')} failed: {record.get('error')}")
    epochs = record["epoch_times_s"] if validation else record["train_times_s"]
    # the CPU spent over the same spans the wall times cover: without validation, the training
    # parts (decide.training_cpu_s)
    whole = (record.get("resources") or {}).get("cpu_time_training_s")
    cpu_s = (whole if validation else decide.training_cpu_s(record)) or 0.0
    return Sample(steady(epochs), cpu_s, list(epochs), record.get("turns"))


def script_sample(line: dict[str, Any]) -> Sample:
    epochs = line["epoch_s"]
    return Sample(steady(epochs), line.get("train_cpu_s") or 0.0, epochs, line.get("turns"))


def measure_pair(
    overrides: list[str],
    cmd: list[str],
    validation: bool,
    twinbench_first: bool,
    ticks: int,
    gap_s: float,
) -> tuple[Sample, Sample]:
    """One pair in turns: (twinbench's sample, the script's). `twinbench_first`: whose start-up
    runs first (the other starts once it waits for its first turn); callers alternate it."""
    with tempfile.TemporaryDirectory(prefix="turn-pair-") as tmp:
        body = twinbench_body([*overrides, "quiet=true"])

        def ours() -> list[dict[str, Any]]:
            return launch.run_job(body, Path(tmp) / "twinbench")

        def theirs() -> dict[str, Any]:
            return run_script(cmd)

        halves = [ours, theirs] if twinbench_first else [theirs, ours]
        names = ("twinbench", "other") if twinbench_first else ("other", "twinbench")
        found = together.run_halves(halves, names, ticks, gap_s, together.lock_key(body))
    records, line = (found[0], found[1]) if twinbench_first else (found[1], found[0])
    if not records or line is None:
        raise RuntimeError("a side of the pair ended without a result")
    return twinbench_sample(records[-1], validation), script_sample(line)


def measure_resident_pair(
    overrides: list[str],
    script_cmd: Callable[[int], list[str]],
    twinbench_first: bool,
    design: Design,
) -> tuple[Sample, Sample]:
    """One resident worker pair (twinbench/launch/resident.py, as the deciding sweep runs
    them): twinbench's worker and the other side's script, both sized to one warm-up turn of
    `design.warmup_ticks` ticks and `design.resident_blocks` blocks of `design.turn_ticks`,
    take turns; each side times its blocks, waits left out. Returns (twinbench's sample, the
    script's), each side's `epoch_s` its seconds per training step over the unit's rounds (the
    geometric mean, so their ratio is the unit's) and `epochs` its compared blocks' seconds per
    step. `script_cmd(steps)`: the script's command for one epoch of that many steps (a
    script's tick is one training step; a Keras run of twinbench's may tick every
    steps_per_execution steps, which the unit divides out)."""
    with tempfile.TemporaryDirectory(prefix="resident-pair-") as tmp:
        body = resident.size_job(twinbench_body([*overrides, "quiet=true"]), design)
        cmd = script_cmd(design.warmup_ticks + design.resident_blocks * design.turn_ticks)
        names = ("twinbench", "other") if twinbench_first else ("other", "twinbench")
        conductor = resident.conductor_for(names, design)  # as the sweep's resident pairs

        def ours() -> list[dict[str, Any]]:
            return launch.run_job(body, Path(tmp) / "twinbench")

        def theirs() -> dict[str, Any]:
            return run_script(cmd)

        halves = [ours, theirs] if twinbench_first else [theirs, ours]
        found = together.run_halves(
            halves, names, design.turn_ticks, design.turn_gap_s, together.lock_key(body),
            conductor=conductor,
        )  # fmt: skip
    mine = 0 if twinbench_first else 1
    records, line = found[mine], found[1 - mine]
    if not records or line is None:
        raise RuntimeError("a side of the resident pair ended without a result")
    if records[-1].get("status") != "ok":
        raise RuntimeError(f"twinbench failed: {records[-1].get('error')}")
    blocks = conductor.blocks[mine], conductor.blocks[1 - mine]
    unit = resident.unit_of(*blocks, design, (resident.steps_per_tick(body), 1))
    if unit is None:
        raise RuntimeError("the resident pair trained no whole round of blocks")
    per_step = [
        [b.wall_s / (b.ticks * t) for b in side if not b.warmup]
        for side, t in zip(blocks, (resident.steps_per_tick(body), 1), strict=True)
    ]
    return (
        Sample(unit.a_step_s["wall"], unit.a_step_s.get("cpu", 0.0), per_step[0],
               records[-1].get("turns")),
        Sample(unit.b_step_s["wall"], unit.b_step_s.get("cpu", 0.0), per_step[1],
               line.get("turns")),
    )  # fmt: skip
