"""What twinbench's torch loop spends per step beyond the bare loop users write, part by part, in
one process on the same cores, so that the host's drift and a process' own state cancel.

The speed table's bare-loop column puts twinbench's torch MLP at 1.04-1.07 of the bare loop's
step in five runs on two hosts, never decided (docs/findings/2026-12-07-speed-table-intel.md).
This times, in blocks taken in turns (`--rounds`, the order rotating each round), one training
step of each of:

- `bare`: benchmarks/bare_loop.py's step (zero_grad, forward, loss, backward, optimizer step);
- `step`: twinbench's step (TorchBackend.tensor_step: the same, through the precision wrapper,
  returning the detached loss and logits);
- `metrics`: `step` plus the epoch's running loss and accuracy as TorchBackend.train adds them
  (`loss_sum += loss * n`, `correct += objective.correct(logits, y)`);
- `loop`: `metrics` plus the loop fingerprint's per-step record of the batch's indices
  (frameworks/loop_print.py), all of TorchBackend.train's per-step work but the clock's read.

Each variant has its own model and optimizer from the same seed and trains on batches of the same
shape, so the four do the same arithmetic; twinbench's variants draw them from every row of the
data set, as its epochs do, and the bare loop from the rows it keeps (`--bare-rows`: a bare loop
of S steps keeps S x batch rows). Prints each variant's median step over the rounds
and its ratio to `bare` per round (median and range).

    python -m benchmarks.diagnostics.torch_loop_overhead [--model mlp] [--cpus 2] [--rounds 20]
"""

from __future__ import annotations

import argparse
import os
import statistics
import time
from collections.abc import Callable
from typing import Any

VARIANTS = ("bare", "step", "metrics", "loop")


def _variants(
    model_name: str, cfg: dict[str, Any], x: Any, y: Any, bare_rows: int | None
) -> dict[str, Callable]:
    """Each variant's per-step work on an index batch, each with its own model and optimizer.
    `bare_rows`: the bare loop gathers its batches from the first this many rows only, as
    benchmarks/bare_loop.py keeps only the rows of the steps it was asked for."""
    import torch

    from benchmarks import bare_loop
    from frameworks.loop_print import LoopPrint
    from frameworks.torch_native.backend import TorchBackend

    module = __import__(f"models.{model_name}", fromlist=["x"])
    bare = bare_loop.torch_bare(module, cfg, x[:bare_rows], y[:bare_rows]).step
    xt, yt = torch.from_numpy(x), torch.from_numpy(y)

    def twinbench(extra: str) -> Callable:
        fw = TorchBackend()
        fw.apply_settings({})
        torch.manual_seed(0)
        model = fw.build(model_name, cfg, "cpu")
        step, objective = fw.tensor_step(model, cfg)
        loss_sum = torch.zeros(())
        correct = torch.zeros((), dtype=torch.int64)
        fed, count = LoopPrint(), [0]

        def one(idx: Any) -> None:
            nonlocal loss_sum, correct
            bx, by = xt[idx], yt[idx]
            if extra == "loop":  # TorchBackend.train's per-step record of the batch
                first = (bx.numpy(), by.numpy()) if count[0] == 0 else None
                fed.batch(0, count[0], idx.cpu().numpy(), first)
                count[0] += 1
            loss, logits = step(bx, by)
            if extra in ("metrics", "loop"):
                loss_sum += loss * len(by)
                correct += objective.correct(logits, by)

        return one

    return {"bare": bare, "step": twinbench("step"), "metrics": twinbench("metrics"),
            "loop": twinbench("loop")}  # fmt: skip


def main(model_name: str, cpus: int, rounds: int, block: int, bare_rows: int | None) -> None:
    from twinbench.machine import cpu

    cpu.pin(cpu.choose_cores(cpus))
    os.environ.update(cpu.thread_environment(cpus, cpus))
    import torch

    from benchdata import cache, fill_arch, load
    from models.catalog import model_config

    torch.set_num_threads(cpus)
    cfg = model_config(model_name)
    data = load(
        cfg["dataset"], "synthetic", 0, cfg.get("view"), synthetic_cache=cache.default_dir()
    )
    cfg = fill_arch(cfg, data)
    bs = cfg["batch_size"]
    x, y = data.x_train, data.y_train
    variants = _variants(model_name, cfg, x, y, bare_rows)

    def batches_of(rows: int) -> list[Any]:
        order = torch.randperm(rows, generator=torch.Generator().manual_seed(0))
        return [b for b in order.split(bs) if len(b) == bs]

    # As in a real pair: twinbench's loop draws its batches from every row of the data set (its
    # epoch's permutation), the bare loop from the rows it kept (`--bare-rows`)
    batches = {v: batches_of(len(x)) for v in VARIANTS}
    batches["bare"] = batches_of(bare_rows or len(x))
    for name, one in variants.items():  # warm-up: first-step allocations, lazy pools
        for idx in batches[name][:block]:
            one(idx)
    per_step: dict[str, list[float]] = {v: [] for v in VARIANTS}
    for r in range(rounds):
        order = VARIANTS[r % len(VARIANTS) :] + VARIANTS[: r % len(VARIANTS)]
        for name in order:  # every variant takes a block of its batches, in rotated turns
            mine = batches[name]
            chunk = [mine[(r * block + i) % len(mine)] for i in range(block)]
            one = variants[name]
            start = time.perf_counter()
            for idx in chunk:
                one(idx)
            per_step[name].append((time.perf_counter() - start) / block)
    print(f"{model_name}, {cpus} core(s), {rounds} rounds of {block} steps a variant, in turns")
    print(f"{'variant':8} {'median step (ms)':>17} {'ratio to bare: median (range) of rounds':>42}")
    for name in VARIANTS:
        ratios = [a / b for a, b in zip(per_step[name], per_step["bare"], strict=True)]
        median = statistics.median(per_step[name]) * 1e3
        spread = f"{statistics.median(ratios):.3f} ({min(ratios):.3f}-{max(ratios):.3f})"
        print(f"{name:8} {median:17.3f} {spread:>42}")


def parse(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--model", default="mlp")
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--block", type=int, default=40, help="steps a variant takes per turn")
    p.add_argument(
        "--bare-rows",
        type=int,
        default=None,
        help="the bare loop's data: its first N rows (bare_loop.py keeps steps x batch rows)",
    )
    return p.parse_args(argv)


if __name__ == "__main__":
    a = parse()
    main(a.model, a.cpus, a.rounds, a.block, a.bare_rows)
