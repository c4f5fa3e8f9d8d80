"""Can a pair of backends escape the machine's bandwidth phases? Both processes alive, in turns.

    python -m benchmarks.resident_pairs A B [--model mlp] [--cpus 1] [--pairs 6] [--rounds 10]
                                            [--steps 20] [--gap 0.05]

Fresh processes run one after the other land in different phases of the host's memory
bandwidth (2-5 s long, both cores at once: docs/findings/2026-11-30-noise-and-bimodality.md),
which is what leaves the default comparison's pairs spread by 20-40%. Here each pair starts one
process per backend (each pinned to the same cores, its thread budget set before its framework
loads, exactly one framework in each), builds the model and its training step (the step parity
runs), warms it up, and then waits. The parent hands out turns: a block of `steps` steps to A,
then to B, then B, then A (ABBA, so neither always goes first), `rounds` times, with `gap`
seconds between turns so the idle side's spinning threads stop first. Only one process computes
at a time; both blocks of a round fall in the same seconds. The pair's ratio is the median of A's
blocks over the median of B's; a new pair starts new processes, so the per-process placement
part of the noise stays in the spread across pairs, where it belongs.

Prints every pair's ratio and block spread, then the sequential decision over the pairs
(twinbench.sequential, as the deciding sweep uses) and one JSON line. Steady steps only: start-up
and compilation are not compared here.
"""

from __future__ import annotations

import argparse
import json
import math
import statistics
import subprocess
import sys
import time
from typing import Any

from benchmarks.alternating_blocks import one_batch
from twinbench import sequential
from twinbench.paths import REPO_ROOT


def child(backend_name: str, model_name: str, cpus: int, steps: int, warmup: int) -> None:
    """One backend, resident: build, warm up, then run a block of steps per 'go' line on stdin
    and answer with the block's seconds per step."""
    backend, cfg, x, y = one_batch(backend_name, model_name, cpus)
    step = backend.make_step(backend.build(model_name, cfg, "cpu"), cfg)
    for _ in range(warmup):
        step(x, y)
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() != "go":
            break
        t0 = time.perf_counter_ns()
        for _ in range(steps):
            step(x, y)
        print((time.perf_counter_ns() - t0) / steps / 1e9, flush=True)


def _start(backend: str, args: argparse.Namespace) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "benchmarks.resident_pairs", "--child", backend, args.model,
           str(args.cpus), str(args.steps), str(args.warmup)]  # fmt: skip
    return subprocess.Popen(
        cmd, cwd=REPO_ROOT, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )


def _turn(proc: subprocess.Popen) -> float:
    proc.stdin.write("go\n")
    proc.stdin.flush()
    return float(proc.stdout.readline())


def one_pair(args: argparse.Namespace) -> dict[str, Any]:
    procs = {name: _start(name, args) for name in (args.a, args.b)}
    try:
        for name, proc in procs.items():  # both built and warm before the first timed block
            if proc.stdout.readline().strip() != "ready":
                raise SystemExit(f"{name}: its process ended before it was ready")
        blocks: dict[str, list[float]] = {args.a: [], args.b: []}
        for r in range(args.rounds):
            order = (args.a, args.b) if r % 2 == 0 else (args.b, args.a)
            for name in order:
                time.sleep(args.gap)
                blocks[name].append(_turn(procs[name]))
    finally:
        for proc in procs.values():
            proc.kill()
            proc.wait()
    a, b = statistics.median(blocks[args.a]), statistics.median(blocks[args.b])
    # Each round's own ratio: how much the blocks of one round still disagree.
    per_round = [x / y for x, y in zip(blocks[args.a], blocks[args.b], strict=True)]
    return {"a_s": a, "b_s": b, "ratio": a / b, "round_ratios": per_round, "blocks": blocks}


def main(argv: list[str] | None = None) -> dict[str, Any]:
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--child":
        name, model, cpus, steps, warmup = argv[1:6]
        child(name, model, int(cpus), int(steps), int(warmup))
        return {}
    p = argparse.ArgumentParser(prog="python -m benchmarks.resident_pairs")
    p.add_argument("a")
    p.add_argument("b")
    p.add_argument("--model", default="mlp")
    p.add_argument("--cpus", type=int, default=1)
    p.add_argument("--pairs", type=int, default=6)
    p.add_argument("--rounds", type=int, default=10)
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--warmup", type=int, default=10)
    p.add_argument("--gap", type=float, default=0.05)
    args = p.parse_args(argv)
    start = time.monotonic()
    pairs = []
    for i in range(args.pairs):
        pair = one_pair(args)
        pairs.append(pair)
        spread = max(pair["round_ratios"]) / min(pair["round_ratios"])
        print(
            f"pair {i + 1}/{args.pairs}: {args.a} {pair['a_s'] * 1e3:.2f} ms, {args.b} "
            f"{pair['b_s'] * 1e3:.2f} ms a step = {pair['ratio']:.3f} (its rounds' ratios span "
            f"{spread:.2f}x)",
            flush=True,
        )
    logs = [math.log(p["ratio"]) for p in pairs]
    decision = sequential.decide_sequence(
        [p["ratio"] for p in pairs], sequential.load_design(max_seconds=None), "max_pairs"
    )
    summary = {
        "a": args.a, "b": args.b, "model": args.model, "cpus": args.cpus,
        "rounds": args.rounds, "steps": args.steps, "gap_s": args.gap,
        "ratios": [p["ratio"] for p in pairs],
        "log_sd": statistics.stdev(logs) if len(logs) > 1 else None,
        "decision": decision.line(),
        "seconds": time.monotonic() - start,
    }  # fmt: skip
    print(f"decision: {decision.line()}")
    print(json.dumps(summary))
    return summary


if __name__ == "__main__":
    main()
