"""A/A calibration: one configuration against itself in interleaved pairs of fresh processes.

    twinbench calibrate                          # mlp, 2 epochs, every allowed core, 6 pairs
    twinbench calibrate --model mlp --cpus 1 --pairs 8 --backend <name>

A pair is measured as the deciding sweep measures its pairs (conf/decision/default.yaml
`pairing`): by default both runs at once, each a fresh worker, taking turns of steps
(twinbench/launch/together.py); with `--pairing sequential` each run is a fresh `run.py` parent
and worker, one after the other; with `--pairing resident` a pair is one resident worker pair
(twinbench/launch/resident.py) and its ratio the unit a resident sweep decides on. A pair's
ratio is run A's over run B's, of the same configuration; which of the two starts first
alternates from pair to pair, as in the sweep. Their spread is this machine's noise floor for
this workload, core count and pairing (twinbench/measure/noise.py), cached per machine like the
GEMM peak, and the smallest margin a decision could resolve in the design's pair budget is
printed. The deciding sweep
(+experiment=compare) reads it and warns before its first pair when its margin is finer.
Exit status 0, or 2 for bad input.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from frameworks import allocator, registry
from twinbench.config.checks import check_run_options, check_writable_dir, fail
from twinbench.config.spec import ConfigError, group_choices
from twinbench.launch import decide, lifeline, resident
from twinbench.machine import cpu, environment
from twinbench.measure import noise
from twinbench.paths import REPO_ROOT
from twinbench.result import results
from twinbench.sequential import PAIRINGS, Design, load_design

SUMMARY = "A/A noise floor: one config against itself in interleaved pairs, cached per machine"
MIN_PAIRS = 3  # the spread of fewer pairs says nothing


def add_arguments(parser: argparse.ArgumentParser) -> None:
    add_workload_arguments(parser)
    parser.add_argument("--pairs", type=int, default=6, help=f"A/A pairs (at least {MIN_PAIRS})")
    parser.add_argument("--cache-dir", type=Path, help="default: ~/.cache/twinbench/noise")


def add_workload_arguments(parser: argparse.ArgumentParser) -> None:
    """What both halves of an A/A pair run, and how they share the machine (twinbench aa
    takes the same)."""
    parser.add_argument("--model", default="mlp", choices=group_choices("model"))
    parser.add_argument("--backend", default=registry.REPORT_REFERENCE, choices=registry.names())
    parser.add_argument("--cpus", type=int, help="cores per run (default: every allowed core)")
    parser.add_argument("--epochs", type=int, default=2, help="per run (default 2, as compare)")
    parser.add_argument("--max-steps", type=int, help="cap steps per epoch (a smaller workload)")
    parser.add_argument(
        "--pairing", choices=PAIRINGS, help="how a pair shares the machine (default: the design's)"
    )
    parser.add_argument(
        "--allocator", choices=allocator.MODES, default=allocator.DEFAULT,
        help="glibc's allocator for both halves (backend.allocator; default: glibc's own). A "
        "floor under retain is cached apart from the default's",
    )  # fmt: skip


def run_overrides(args: argparse.Namespace) -> list[str]:
    """The run's configuration as command-line overrides, the same for both halves."""
    out = [f"backend={args.backend}", f"model={args.model}", f"epochs={args.epochs}"]
    out += ["quiet=true", "force=true", "measure.peak_probe=false"]
    # `is not None`: `--cpus 0` must reach the checks, not calibrate every core under "cpus2"
    out += [f"cpus={args.cpus}"] if args.cpus is not None else []
    out += allocator.overrides(args.allocator)
    return out + ([f"max_steps={args.max_steps}"] if args.max_steps is not None else [])


def too_short(args: argparse.Namespace) -> str | None:
    """Why no run of this workload would record a steady figure (None: it would). The warm-up
    (measure.warmup_steps) and each epoch's first step are never steady: `--max-steps 2` at 2
    epochs ran every pair and cached a floor of nothing (issue 45)."""
    if args.max_steps is None:
        return None
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from twinbench import stats
    from twinbench.paths import CONF_DIR

    with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=run_overrides(args))
    warmup = int(OmegaConf.select(cfg, "measure.warmup_steps"))

    def steady(steps: int) -> bool:
        return bool(stats.steady_steps([[1] * steps] * args.epochs, warmup))

    if steady(args.max_steps):
        return None
    shortest = next(n for n in range(2, warmup + 3) if steady(n))
    return (
        f"--max-steps {args.max_steps} at --epochs {args.epochs} leaves no step past the warm-up "
        f"(measure.warmup_steps={warmup}) that does not open an epoch, so no pair would have a "
        f"steady step to compare: use --max-steps {shortest} or more"
    )


def _figures(record: dict[str, Any]) -> dict[str, float]:
    """A run's wall and CPU figures ({} for a failed run, said on stderr)."""
    if record.get("status") != "ok":
        print(f"  run failed: {record.get('error')}", file=sys.stderr, flush=True)
        return {}
    if not record["timing"].get("steady_step_s"):  # too short for its warm-up: its flags say
        print(f"  no steady figure: {'; '.join(record.get('flags', []))}", file=sys.stderr)
        return {}
    return {
        "wall": record["timing"]["steady_step_s"]["median"],
        "cpu": decide.training_cpu_s(record) or 0.0,
    }


def composed(args: argparse.Namespace) -> dict[str, Any]:
    """The run config both halves of every pair share (conf/ with the run's overrides)."""
    from hydra import compose, initialize_config_dir
    from omegaconf import OmegaConf

    from twinbench.paths import CONF_DIR

    with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        cfg = compose("config", overrides=run_overrides(args))
    return OmegaConf.to_container(cfg, resolve=True)  # type: ignore[return-value]


def _jobs(args: argparse.Namespace, folder: Path, i: int) -> list[tuple[dict[str, Any], Path]]:
    """Pair i's two jobs (the same composed config), as (A, B)."""
    body = composed(args)
    return [(body, folder / f"pair-{i}-{half}") for half in ("a", "b")]


def pair_in_turns(args: argparse.Namespace, folder: Path, design: Design, i: int):
    """Pair i, both runs at once taking turns (the deciding sweep's way)."""
    from twinbench.launch import together

    jobs = _jobs(args, folder, i)
    halves = together.run_together(in_start_order(i, jobs), design.turn_ticks, design.turn_gap_s)
    a, b = ([_figures(r) for r in records] or [{}] for records in in_start_order(i, halves))
    return a[-1], b[-1]


def resident_unit(
    args: argparse.Namespace, folder: Path, design: Design, i: int
) -> resident.Unit | None:
    """Pair i as one resident worker pair (A/A): its unit (twinbench/launch/resident.py), or
    None when no round of blocks was whole (a worker failed: said on stderr)."""
    measured = resident.run_pair(in_start_order(i, _jobs(args, folder, i)), design)
    for records in measured.records:
        for r in records:
            if r.get("status") != "ok":
                print(f"  run failed: {r.get('error')}", file=sys.stderr, flush=True)
    return resident.unit_from(measured, design, flip=i % 2 == 1)  # in_start_order: B first


def _pair_resident(args: argparse.Namespace, folder: Path, design: Design, i: int):
    """Pair i's unit as the figures noise.calibrate takes: A's ratio over B's 1."""
    unit = resident_unit(args, folder, design, i)
    if unit is None:
        return {}, {}
    return dict(unit.ratios), {m: 1.0 for m in unit.ratios}


def in_start_order(i: int, pair: list[Any]) -> list[Any]:
    """Pair i's (A, B) in the order they start: A first in even pairs, B first in odd ones (its
    own inverse, so it also puts what they returned back as (A, B)). The deciding sweep
    alternates which backend starts first from pair to pair; an A/A floor must see the same
    order effect in its spread (here the half started first ran 1-2% slower at 1 core, in every
    pair, on 2026-12-02), where always starting A first would hide it as a constant bias."""
    return list(pair) if i % 2 == 0 else list(pair)[::-1]


def _run_one(args: argparse.Namespace, folder: Path) -> dict[str, float]:
    """One run of the configuration in its own processes; its wall and CPU figures."""
    cmd = [
        sys.executable,
        "-m",
        "twinbench.cli.run",
        *run_overrides(args),
        f"hydra.run.dir={folder}",
    ]
    path = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    subprocess.run(cmd, env={**os.environ, "PYTHONPATH": path}, check=False, capture_output=True)
    try:
        record = results.read(folder / results.RESULT_FILE)
    except (OSError, ValueError):
        return {}
    return _figures(record)


@lifeline.stops_on_signals(
    "twinbench calibrate", "no floor was cached (a floor is cached once all its pairs ran)"
)
def run(args: argparse.Namespace) -> int:
    if args.pairs < MIN_PAIRS:
        fail(f"--pairs must be at least {MIN_PAIRS}, got {args.pairs}")
    # The options are run keys: refused by run.py's own checks before the first pair starts.
    check_run_options([[*run_overrides(args), f"hydra.run.dir={tempfile.gettempdir()}"]])
    if why := too_short(args):
        fail(why)
    if args.cache_dir is not None:
        try:
            check_writable_dir(
                f"--cache-dir {args.cache_dir}", args.cache_dir, "choose another --cache-dir"
            )
        except ConfigError as exc:
            fail(str(exc))
    cores = args.cpus or len(cpu.allowed_cpus())
    design = load_design(**({"pairing": args.pairing} if args.pairing else {}))
    # A resident unit's length is the design's, not --epochs/--max-steps: keyed as the sweep
    # looks it up (the reference backends tick once a step).
    epochs, steps = resident.floor_length(design, args.epochs, args.max_steps)
    workload = noise.workload_key(args.model, epochs, steps, cores, design.pairing, args.allocator)
    fingerprint = environment.describe()["fingerprint"]
    how = design.described()["name"]
    print(
        f"calibrate: {args.backend} {workload} against itself, {args.pairs} pairs ({how})",
        flush=True,
    )
    with tempfile.TemporaryDirectory() as tmp:

        def run_pair(i: int) -> tuple[dict[str, float], dict[str, float]]:
            if design.pairing == "resident":
                return _pair_resident(args, Path(tmp), design, i)
            if design.pairing == "turns":
                return pair_in_turns(args, Path(tmp), design, i)
            runs = [Path(tmp) / f"run-{2 * i}", Path(tmp) / f"run-{2 * i + 1}"]
            a, b = in_start_order(i, [_run_one(args, r) for r in in_start_order(i, runs)])
            return a, b

        record = noise.calibrate(
            fingerprint,
            workload,
            run_pair,
            args.pairs,
            design,
            args.cache_dir,
            about={"backend": args.backend, "pairing": design.pairing},
        )
    for measure in noise.MEASURES:
        print(noise.describe(record, measure, design.margin), flush=True)
    print(f"cached: {record['cache_file']}", flush=True)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="twinbench calibrate", description=__doc__)
    add_arguments(parser)
    return run(parser.parse_args(argv))


if __name__ == "__main__":
    sys.exit(main())
