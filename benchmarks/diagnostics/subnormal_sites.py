"""Where in a torch training step subnormal floats appear as a model trains, and what an epoch
costs meanwhile: the step-by-step evidence behind the record's `subnormals` block.

Trains the project's own torch model (models/, conf/model/<name>.yaml: its initialisation,
objective and optimizer formula) in the plain loop users write without twinbench
(benchmarks/bare_loop.py), on the synthetic data set, one pinned core, one thread, in the batch
order twinbench's runs share; after chosen epochs it takes a look of `--look-batches` training
steps with forward and backward hooks: the share of subnormal floats in every module's output
and in the gradient at it, in the weights' gradients and in the optimizer's state. At each look
it also times the look's batches as training steps with subnormals computed and flushed in turns
(`--ab-rounds`, the order alternating), in the same process on the same weights: the switch's
effect free of the host's drift between runs. `--flush` trains the whole run with
torch.set_flush_denormal(True), as `backend.flush_denormal=true` does.

    python -m benchmarks.diagnostics.subnormal_sites [--model mlp] [--epochs 16] [--flush]

docs/findings/2026-12-07-subnormals.md used it.
"""

from __future__ import annotations

import argparse
import os
import time
import warnings
from typing import Any


def _share(tensor: Any) -> float:
    from frameworks import subnormals

    values, found = subnormals.count(tensor.detach().cpu().numpy())
    return found / values if values else 0.0


def _look(model: Any, step, state: list[Any], batches: list[Any]) -> dict[str, float]:
    """Mean subnormal share per site over training steps on `batches` (index batches), hooks on
    every leaf module."""
    seen: dict[str, list[float]] = {}
    hooks = []
    leaves = [(n, m) for n, m in model.named_modules() if not list(m.children())]
    # The first layer's input needs no gradient: torch warns that the hook then sees only the
    # gradient flowing into the module's output, which is the one this look wants.
    warnings.filterwarnings("ignore", message="Full backward hook is firing")
    for name, module in leaves:
        label = f"{name} ({type(module).__name__})"

        def out_hook(_m, _inp, out, label=label):
            seen.setdefault(f"{label} output", []).append(_share(out))

        def grad_hook(_m, _gin, gout, label=label):
            if gout[0] is not None:
                seen.setdefault(f"{label} gradient at its output", []).append(_share(gout[0]))

        hooks += [module.register_forward_hook(out_hook),
                  module.register_full_backward_hook(grad_hook)]  # fmt: skip
    for idx in batches:
        step(idx)
        grads = [p.grad for p in model.parameters() if p.grad is not None]
        seen.setdefault("weights' gradients", []).append(sum(map(_share, grads)) / len(grads))
        seen.setdefault("optimizer state", []).append(sum(map(_share, state)) / max(len(state), 1))
    for hook in hooks:
        hook.remove()
    return {k: sum(v) / len(v) for k, v in seen.items()}


def _flush_ab(step, batches: list[Any], rounds: int) -> list[float]:
    """Per round, the time of `batches` training steps computing subnormals over the time of
    the same steps flushing them, the two halves back to back (order alternating) in this one
    process: the same weights, batches and seconds of the machine, only the switch differs."""
    import torch

    ratios = []
    for r in range(rounds):
        seconds = {}
        for flush in (False, True) if r % 2 == 0 else (True, False):
            torch.set_flush_denormal(flush)
            start = time.perf_counter()
            for idx in batches:
                step(idx)
            seconds[flush] = time.perf_counter() - start
        ratios.append(seconds[False] / seconds[True])
    return ratios


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="mlp")
    parser.add_argument("--epochs", type=int, default=16)
    parser.add_argument("--looks", type=int, nargs="*", default=None,
                        help="epochs after which to look (default: 1, half, last)")  # fmt: skip
    parser.add_argument("--look-batches", type=int, default=20)
    parser.add_argument("--core", type=int, default=0)
    parser.add_argument("--flush", action="store_true")
    parser.add_argument(
        "--ab-rounds", type=int, default=10, help="rounds of the flush switch's A/B at each look"
    )
    args = parser.parse_args(argv)
    from twinbench.machine import cpu

    cpu.pin([args.core])
    os.environ.update(cpu.thread_environment(1, 1))  # before torch loads its pools

    import torch

    import models
    from benchdata import batching, cache, fill_arch, load
    from benchmarks.bare_loop import torch_bare
    from models.catalog import model_config

    torch.set_num_threads(1)
    if args.flush and not torch.set_flush_denormal(True):
        raise SystemExit("this CPU cannot flush denormals")
    cfg = model_config(args.model)
    data = load(
        cfg["dataset"], "synthetic", 0, cfg.get("view"), synthetic_cache=cache.default_dir()
    )
    cfg = fill_arch(cfg, data)  # the sizes only the data knows
    # The plain torch loop users write (benchmarks/bare_loop.py): its model, optimizer and step.
    bare = torch_bare(models.get(args.model), cfg, data.x_train, data.y_train)
    model, optimizer = bare.model, bare.optimizer
    bs = int(cfg["batch_size"])
    steps = batching.steps_per_epoch(len(data.x_train), bs, None)
    orders = batching.epoch_permutations(len(data.x_train), args.epochs, 0)  # the runs' order

    looks = set(args.looks or (1, max(1, args.epochs // 2), args.epochs))
    print(f"{args.model}, torch, 1 core (core {args.core}), flush_denormal={args.flush}")
    for epoch in range(args.epochs):
        model.train()
        batches = batching.epoch_batches(orders[epoch], bs, steps)
        start = time.perf_counter()
        for idx in batches:
            bare.step(idx)
        seconds = time.perf_counter() - start
        print(f"epoch {epoch + 1}: {seconds:.2f} s, {seconds / len(batches) * 1e3:.2f} ms a step",
              flush=True)  # fmt: skip
        if epoch + 1 in looks:
            state = [v for s in optimizer.state.values() for v in s.values()
                     if isinstance(v, torch.Tensor) and v.dim() > 0]  # fmt: skip
            sample = batches[: args.look_batches]
            found = _look(model, bare.step, state, sample)
            print(f"  subnormal share after epoch {epoch + 1} (mean of {len(sample)} batches):")
            for site, share in found.items():
                if share > 0:
                    print(f"    {site:40s} {share:.3%}")
            if args.ab_rounds and not args.flush:
                ratios = sorted(_flush_ab(bare.step, sample, args.ab_rounds))
                torch.set_flush_denormal(False)  # back to the run's own setting
                print(f"  step computing subnormals / flushing them, {len(ratios)} rounds of "
                      f"{len(sample)} steps: median {ratios[len(ratios) // 2]:.3f}, "
                      f"range {ratios[0]:.3f}-{ratios[-1]:.3f}")  # fmt: skip
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
