"""Does a framework's GEMM use a second thread at a model's own shapes?

The machine peak (twinbench/measure/peak.py) times large square GEMMs. A model's GEMMs are
smaller: the MNIST MLP's first layer multiplies a batch of 128 rows by 784 x 512. This times
`m x k @ k x n` at several row counts in TensorFlow and torch, each framework and thread count
in a fresh process pinned to as many of this process's cores (intra-op threads = cores,
inter-op 1), and prints GFLOP/s and the gain from one thread to the most.

    python -m benchmarks.diagnostics.gemm_threads [--threads 1 2] [--shapes 128x784x512 ...]

On the Intel host (2026-12-07) TensorFlow's 128 x 784 x 512 ran at 114 GFLOP/s on one thread and
111 on two, torch's at 169 and 286 (docs/findings/2026-12-07-hardware-by-round.md).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time

SHAPES = ("128x784x512", "512x784x512", "2048x784x512", "2048x2048x2048")
FRAMEWORKS = ("tensorflow", "torch")
TARGET_FLOP = 2e9  # each timed repeat does about this much work
REPEATS = 5  # timed repeats; the best counts (a GEMM's speed has no upward noise)


def time_gemm(framework: str, threads: int, shapes: list[str]) -> dict[str, float]:
    """GFLOP/s of each shape in this process, `threads` intra-op threads (call it in a fresh
    process: TensorFlow's threads are fixed once its runtime starts)."""
    if framework == "tensorflow":
        import tensorflow as tf

        tf.config.threading.set_intra_op_parallelism_threads(threads)
        tf.config.threading.set_inter_op_parallelism_threads(1)
        matmul = tf.function(lambda a, b: tf.matmul(a, b))

        def run(a, b):
            return matmul(a, b)

        def rand(m, n):
            return tf.random.normal((m, n))

        def done(result):
            return result.numpy()
    else:
        import torch

        torch.set_num_threads(threads)

        def run(a, b):
            return a @ b

        def rand(m, n):
            return torch.randn(m, n)

        def done(result):
            return result

    rates = {}
    for shape in shapes:
        m, k, n = (int(x) for x in shape.split("x"))
        a, b = rand(m, k), rand(k, n)
        for _ in range(5):  # warm-up: kernel choice, tracing
            done(run(a, b))
        reps = max(3, int(TARGET_FLOP / (2 * m * k * n)))
        best = float("inf")
        for _ in range(REPEATS):
            start = time.perf_counter()
            for _ in range(reps):
                result = run(a, b)
            done(result)
            best = min(best, (time.perf_counter() - start) / reps)
        rates[shape] = 2 * m * k * n / best / 1e9
    return rates


def measure(framework: str, threads: int, shapes: list[str]) -> dict[str, float]:
    """time_gemm in a fresh process pinned to the first `threads` of this process's cores."""
    cores = sorted(os.sched_getaffinity(0))[:threads]
    code = (
        "import json, os, sys\n"
        f"os.sched_setaffinity(0, {cores!r})\n"
        "from benchmarks.diagnostics.gemm_threads import time_gemm\n"
        f"print(json.dumps(time_gemm({framework!r}, {threads}, {shapes!r})))\n"
    )
    env = {**os.environ, "TF_CPP_MIN_LOG_LEVEL": "3"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, env=env
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cores = len(os.sched_getaffinity(0))
    parser.add_argument("--threads", type=int, nargs="+", default=sorted({1, cores}))
    parser.add_argument("--shapes", nargs="+", default=list(SHAPES), help="m x k x n")
    parser.add_argument("--frameworks", nargs="+", default=list(FRAMEWORKS))
    args = parser.parse_args(argv)
    if max(args.threads) > cores:
        parser.error(f"--threads {max(args.threads)}: this process may use {cores} core(s)")
    found = {(f, t): measure(f, t, args.shapes) for f in args.frameworks for t in args.threads}
    few, most = min(args.threads), max(args.threads)
    print(f"GEMM GFLOP/s, m x k @ k x n; threads {few} to {most} (pinned, fresh processes)")
    for f in args.frameworks:
        for shape in args.shapes:
            a, b = found[(f, few)][shape], found[(f, most)][shape]
            print(f"  {f:<10} {shape:>15}  {a:7.1f} -> {b:7.1f}  gain {b / a:.2f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
