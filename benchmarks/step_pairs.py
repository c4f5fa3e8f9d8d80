"""twinbench's torch training loop against the bare loop, block by block in one process.

    python -m benchmarks.step_pairs [--model mlp] [--pairs 40] [--block 50] [--cpus N]
                                    [--out F]

Fresh-process pairs (benchmarks/overhead.py) compare whole runs, so they also compare the
machine's state at two moments: here main-memory bandwidth moves by 20-40% in phases of a few
seconds (benchmarks/speed_states.py), more than the 2% sought. This design takes the machine out:
one process holds both loops, each with its own copy of the network, and runs `--block` training
steps of one, then of the other, alternating which goes first (ABBA...), so both halves of a pair
run within about a second of each other. Each pair gives a ratio of time per step, twinbench /
bare, and of process CPU time per step; the result is their median with its exact interval.

twinbench's side is its real loop: `train()` of the torch backend (frameworks/torch_native),
called for one epoch of `--block` steps without validation, its per-step bookkeeping (the
training loss and accuracy sums, the step clock) included. One difference favours the bare loop:
`train()` builds its optimizer at each call, as a run does once, so every block pays one
allocation of the optimizer's state. The ratio is therefore an upper bound on the overhead.
Backends whose loop is Keras' `fit` cannot be cut into blocks without paying `fit`'s set-up per
block; for them the fresh-process pairs are the measure.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path
from typing import Any

from twinbench.machine import cpu


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--model", default="mlp")
    p.add_argument("--pairs", type=int, default=40, help="pairs of blocks (one more warms up)")
    p.add_argument("--block", type=int, default=50, help="training steps per block")
    p.add_argument("--cpus", type=int, default=len(cpu.allowed_cpus()))
    p.add_argument("--out", type=Path, help="write every block's figures to this JSON file")
    args = p.parse_args(argv)
    if args.pairs < 2 or args.block < 1:
        p.error("--pairs must be at least 2 and --block at least 1")
    cpu.pin(cpu.choose_cores(args.cpus))
    os.environ.update(cpu.thread_environment(args.cpus, args.cpus))
    result = measure(args.model, args.pairs, args.block, args.cpus)
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


def measure(model_name: str, pair_count: int, block: int, cpus: int) -> dict[str, Any]:
    import numpy as np

    from benchmarks import bare_loop, pairs
    from benchmarks.ports import harness
    from frameworks import get_backend
    from frameworks.base import TrainPlan
    from frameworks.timing import RunClock
    from twinbench import stats

    backend = get_backend("torch")
    backend.configure_threads(cpus, cpus)
    data, cfg = harness.arrays(model_name, harness.Budget(cpus, max_steps=None, epochs=None))
    # No augmentation on either side: the bare loop has none (as in benchmarks/overhead.py).
    cfg = {**cfg, "augment": None}
    bs = cfg["batch_size"]
    module = __import__(f"models.{model_name}", fromlist=["x"])
    bare_step = bare_loop.torch_bare_step(module, cfg, data.x_train, data.y_train)
    backend.seed(0)
    model = backend.build(model_name, cfg, "cpu")
    steps_per_pass = len(data.x_train) // bs
    if block > steps_per_pass:
        raise SystemExit(f"--block {block}: {model_name} has only {steps_per_pass} batches")
    order = np.random.default_rng(0).permutation(len(data.x_train))

    def indices(b: int) -> np.ndarray:  # block b's samples: the same for both loops
        start = (b * block) % (steps_per_pass - block + 1) * bs
        return order[start : start + block * bs]

    def ours(b: int) -> None:
        plan = TrainPlan(
            epochs=1, batch_size=bs, steps_per_epoch=block, eval_steps=0,
            orders=indices(b)[None, :], seed=0, device="cpu", validate=False,
        )  # fmt: skip
        backend.train(model, cfg, data, plan, RunClock())

    def theirs(b: int) -> None:
        import torch

        for idx in torch.from_numpy(indices(b)).split(bs):
            bare_step(idx)

    def timed(run, b: int) -> tuple[float, float]:
        wall, cpu_s = time.perf_counter(), time.process_time()
        run(b)
        return (time.perf_counter() - wall) / block, (time.process_time() - cpu_s) / block

    a_wall, b_wall, a_cpu, b_cpu = [], [], [], []
    for i in range(pair_count + 1):  # pair 0 warms both loops up and is left out
        first, second = (ours, theirs) if i % 2 == 0 else (theirs, ours)
        t1, t2 = timed(first, i), timed(second, i)
        (ours_t, theirs_t) = (t1, t2) if first is ours else (t2, t1)
        if i:
            a_wall.append(ours_t[0])
            b_wall.append(theirs_t[0])
            a_cpu.append(ours_t[1])
            b_cpu.append(theirs_t[1])
    wall = stats.paired_ratio(a_wall, b_wall)
    cpu_ratio = stats.paired_ratio(a_cpu, b_cpu)
    print(
        f"torch {model_name}: twinbench / bare loop per step, {pair_count} pairs of {block}-step "
        f"blocks in one process, cpus={cpus}\n"
        f"  time {wall.median:.3f} [{wall.ci_low:.3f}, {wall.ci_high:.3f}] "
        f"({wall.confidence:.0%})  process CPU {cpu_ratio.median:.3f} "
        f"[{cpu_ratio.ci_low:.3f}, {cpu_ratio.ci_high:.3f}]  {pairs.verdict(wall)}\n"
        f"  median step: twinbench {np.median(a_wall) * 1e3:.3f} ms, "
        f"bare {np.median(b_wall) * 1e3:.3f} ms",
        flush=True,
    )
    return {
        "model": model_name,
        "cpus": cpus,
        "block": block,
        "ours_step_s": a_wall,
        "bare_step_s": b_wall,
        "ours_cpu_s": a_cpu,
        "bare_cpu_s": b_cpu,
        "ratio": wall.as_dict(),
        "cpu_ratio": cpu_ratio.as_dict(),
        "verdict": pairs.verdict(wall),
    }


if __name__ == "__main__":
    raise SystemExit(main())
