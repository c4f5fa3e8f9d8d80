"""Does twinbench slow down what it measures? twinbench vs a bare loop, A/B interleaved.

    python -m benchmarks.overhead [--models mlp cnn] [--backends torch tensorflow]
                                  [--pairs 12] [--steps 100] [--epochs 3] [--cpus N] [--out F]

For each backend x model, `pairs` times: one twinbench run (run.py, fresh worker) and one bare
run (benchmarks/bare_loop.py, fresh process), alternating which goes first, so drift on a shared
machine hits both alike. Both train the same network on the same data for `steps` steps per
epoch; the first epoch (tracing, warm-up) is dropped and the rest compared as training time per
epoch. Prints the median of the pairs' ratios twinbench / bare with its exact interval
(order statistics of the paired ratios), the same for the processes' CPU time (user + system,
whole process: start-up included on both sides), and the verdict against the goal: twinbench
within 2% of the bare loop, decided only beyond the interval.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from benchmarks import pairs
from twinbench import cpu

NO_AUGMENTATION = ("model.augment=null",)  # the bare loop trains on the arrays as they are


def bare(backend: str, model: str, cpus: int, steps: int, epochs: int) -> pairs.Sample:
    cmd = [sys.executable, "-m", "benchmarks.bare_loop", backend, model]
    out, cpu_s = pairs.json_line_process([*cmd, str(cpus), str(steps), str(epochs)])
    return pairs.Sample(pairs.steady(out["epoch_s"]), cpu_s, out["epoch_s"])


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--models", nargs="+", default=["mlp", "cnn"])
    p.add_argument("--backends", nargs="+", default=pairs.BACKENDS, choices=pairs.BACKENDS)
    p.add_argument("--pairs", type=int, default=12)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--cpus", type=int, default=len(cpu.allowed_cpus()))
    p.add_argument("--out", type=Path, help="write every pair's figures to this JSON file")
    args = p.parse_args(argv)
    if args.epochs < 2:
        p.error("--epochs must be at least 2: the first epoch is left out")
    print(
        f"twinbench / bare loop, training time per epoch; {args.pairs} interleaved pairs, "
        f"{args.steps} steps x {args.epochs - 1} timed epochs, cpus={args.cpus}",
        flush=True,
    )
    results = []
    for backend in args.backends:
        for model in args.models:
            label = f"{backend:<11}{model:<8}"
            print(label, flush=True)

            def ours(backend=backend, model=model):
                return pairs.twinbench(
                    backend,
                    model,
                    args.cpus,
                    args.epochs,
                    args.steps,
                    validation=False,
                    overrides=NO_AUGMENTATION if model == "cifar10_cnn" else (),
                )

            def theirs(backend=backend, model=model):
                return bare(backend, model, args.cpus, args.steps, args.epochs)

            summary = pairs.summarise(pairs.interleave(ours, theirs, args.pairs, print))
            print(pairs.line(label, summary), flush=True)
            results.append({"backend": backend, "model": model, **summary})
    if args.out:
        args.out.write_text(json.dumps({"cpus": args.cpus, "results": results}, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
