"""A/A calibration: one configuration against itself in interleaved pairs of fresh processes.

    twinbench calibrate                          # mlp, 2 epochs, every allowed core, 6 pairs
    twinbench calibrate --model mlp --cpus 1 --pairs 8 --backend <name>

Every run goes through the normal path (a fresh `run.py` parent and its fresh worker, one after
the other, never two at once); a pair's ratio is run A's over run B's, of the same configuration.
Their spread is this machine's noise floor for this workload and core count
(twinbench/measure/noise.py), cached per machine like the GEMM peak, and the smallest margin a
decision could resolve in conf/decision/default.yaml's pair budget is printed. The deciding sweep
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

from frameworks import registry
from twinbench.config.checks import fail
from twinbench.config.spec import group_choices
from twinbench.machine import cpu, environment
from twinbench.measure import noise
from twinbench.paths import REPO_ROOT
from twinbench.result import results
from twinbench.sequential import load_design

SUMMARY = "A/A noise floor: one config against itself in interleaved pairs, cached per machine"
MIN_PAIRS = 3  # the spread of fewer pairs says nothing


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--model", default="mlp", choices=group_choices("model"))
    parser.add_argument("--backend", default=registry.REPORT_REFERENCE, choices=registry.names())
    parser.add_argument("--cpus", type=int, help="cores per run (default: every allowed core)")
    parser.add_argument("--epochs", type=int, default=2, help="per run (default 2, as compare)")
    parser.add_argument("--max-steps", type=int, help="cap steps per epoch (a smaller workload)")
    parser.add_argument("--pairs", type=int, default=6, help=f"A/A pairs (at least {MIN_PAIRS})")
    parser.add_argument("--cache-dir", type=Path, help="default: ~/.cache/twinbench/noise")


def _run_one(args: argparse.Namespace, folder: Path) -> dict[str, float]:
    """One run of the configuration in its own processes; its wall and CPU figures."""
    cmd = [sys.executable, "-m", "twinbench.cli.run", f"backend={args.backend}"]
    cmd += [f"model={args.model}", f"epochs={args.epochs}", "quiet=true", "force=true"]
    cmd += ["measure.peak_probe=false", f"hydra.run.dir={folder}"]
    cmd += [f"cpus={args.cpus}"] if args.cpus else []
    cmd += [f"max_steps={args.max_steps}"] if args.max_steps else []
    path = os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")]))
    subprocess.run(cmd, env={**os.environ, "PYTHONPATH": path}, check=False, capture_output=True)
    try:
        record = results.read(folder / results.RESULT_FILE)
    except (OSError, ValueError):
        return {}
    if record.get("status") != "ok":
        print(f"  run failed: {record.get('error')}", file=sys.stderr, flush=True)
        return {}
    return {
        "wall": record["timing"]["steady_step_s"]["median"],
        "cpu": (record.get("resources") or {}).get("cpu_time_training_s") or 0.0,
    }


def run(args: argparse.Namespace) -> int:
    if args.pairs < MIN_PAIRS:
        fail(f"--pairs must be at least {MIN_PAIRS}, got {args.pairs}")
    cores = args.cpus or len(cpu.allowed_cpus())
    workload = noise.workload_key(args.model, args.epochs, args.max_steps, cores)
    fingerprint = environment.describe()["fingerprint"]
    design = load_design()
    print(f"calibrate: {args.backend} {workload} against itself, {args.pairs} pairs", flush=True)
    with tempfile.TemporaryDirectory() as tmp:
        record = noise.calibrate(
            fingerprint,
            workload,
            lambda i: _run_one(args, Path(tmp) / f"run-{i}"),
            args.pairs,
            design,
            args.cache_dir,
            about={"backend": args.backend},
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
