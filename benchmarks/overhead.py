"""Does twinbench slow down what it measures? twinbench vs a bare loop, A/B alternated.

    python -m benchmarks.overhead [--models mlp cnn] [--backends torch tensorflow]
                                  [--pairs 5] [--steps 100] [--epochs 3] [--cpus N]

For each backend x model, `pairs` times: one twinbench run (run.py, fresh worker) and one bare
run (benchmarks/bare_loop.py, fresh process), in alternating order so drift on a shared machine
hits both alike. Both train the same network on the same data for `steps` steps per epoch; the
first epoch (tracing, warm-up) is dropped and the rest compared as training time per epoch.
Prints the ratio twinbench / bare with its 95% bootstrap interval. Goal: within 2% (1.00-1.02).
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from twinbench import REPO_ROOT, cpu, stats


def twinbench_epochs(backend: str, model: str, cpus: int, steps: int, epochs: int) -> list[float]:
    with tempfile.TemporaryDirectory() as run_dir:
        cmd = [
            sys.executable,
            "run.py",
            f"backend={backend}",
            f"model={model}",
            f"cpus={cpus}",
            f"epochs={epochs}",
            f"max_steps={steps}",
            "measure.peak_probe=false",
            f"hydra.run.dir={run_dir}",
        ]
        subprocess.run(cmd, cwd=REPO_ROOT, check=True, capture_output=True)
        record = json.loads((Path(run_dir) / "result.json").read_text())
    return record["train_times_s"][1:]


def bare_epochs(backend: str, model: str, cpus: int, steps: int, epochs: int) -> list[float]:
    cmd = [
        sys.executable,
        "-m",
        "benchmarks.bare_loop",
        backend,
        model,
        str(cpus),
        str(steps),
        str(epochs),
    ]
    out = subprocess.run(cmd, cwd=REPO_ROOT, check=True, capture_output=True, text=True).stdout
    return json.loads(out.strip().splitlines()[-1])["epoch_s"][1:]


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--models", nargs="+", default=["mlp", "cnn"])
    p.add_argument("--backends", nargs="+", default=["torch", "tensorflow"])
    p.add_argument("--pairs", type=int, default=5)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--cpus", type=int, default=len(cpu.allowed_cpus()))
    args = p.parse_args(argv)
    print(
        f"twinbench / bare loop, training time per epoch; {args.pairs} A/B pairs, "
        f"{args.steps} steps x {args.epochs - 1} timed epochs, cpus={args.cpus}"
    )
    for backend in args.backends:
        for model in args.models:
            a, b = [], []
            for i in range(args.pairs):
                order = (
                    (twinbench_epochs, bare_epochs)
                    if i % 2 == 0
                    else (bare_epochs, twinbench_epochs)
                )
                for measure in order:
                    out = a if measure is twinbench_epochs else b
                    out.append(
                        statistics.median(
                            measure(backend, model, args.cpus, args.steps, args.epochs)
                        )
                    )
            ratio, lo, hi = stats.ratio_ci(a, b)
            pairs = [round(x / y, 3) for x, y in zip(a, b, strict=True)]
            print(
                f"{backend:<11}{model:<8} twinbench {statistics.median(a):.3f}s  "
                f"bare {statistics.median(b):.3f}s  ratio {ratio:.3f} "
                f"[{lo:.3f}, {hi:.3f}]  pairs {pairs}",
                flush=True,
            )


if __name__ == "__main__":
    main()
