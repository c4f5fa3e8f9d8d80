"""The training loop of karpathy/nanoGPT `train.py`, around twinbench's torch gpt.

    python -m benchmarks.ports.nanogpt_train --cpus N [--max-steps S] [--epochs E]

Kept from nanoGPT: a `configure_optimizers` that sorts the parameters into a decayed and a
not-decayed group and builds `torch.optim.AdamW` on the two; a `get_lr(it)` that the loop
writes into every param group at the top of each iteration (linear warm-up, half cosine to
`min_lr`, `min_lr` after); a `get_batch` that draws `batch_size` random examples per
iteration; per iteration: forward, loss, the next batch fetched before `backward` (as nanoGPT
overlaps the copy with the backward pass), `clip_grad_norm_` over every parameter,
`optimizer.step()`, `zero_grad(set_to_none=True)`, and `loss.item()` every `log_interval`.
Changes, each one demanded by the comparison:
- the network is twinbench's torch gpt (models/gpt.py, sizes from conf/model/gpt.yaml): the
  same blocks as nanoGPT's model.py (models/gpt.py lists where its weights differ), returning
  logits only; the loss is the `F.cross_entropy` over every position that nanoGPT's
  `GPT.forward` computes when given targets, written in the loop instead.
- hyperparameters are conf/model/gpt.yaml's (learning rate, betas, eps, weight decay, warm-up,
  cosine length, min_lr, clipping, batch size), not shakespeare_char's; the warm-up is
  twinbench's lr * (it + 1) / warmup_steps (nanoGPT divides by warmup_iters + 1), so both
  sides set the same rates; the cosine runs `cosine_steps` (nanoGPT's lr_decay_iters minus
  the warm-up).
- decay on matrices only (`weight_decay_on: matrices`): nanoGPT decays every parameter of two
  or more dimensions, the embedding tables included; twinbench keeps the tables undecayed, so
  they join the not-decayed group here. The tied head is wte's table, listed once.
- plain `torch.optim.AdamW` (foreach on a CPU, fused only on an accelerator, as nanoGPT picks):
  twinbench's AdamW moves epsilon as Keras 2.0 did (frameworks/torch_native/optimizers.py), one
  float per group per step, a different value and the same work.
- batches: random blocks of twinbench's arrays (harness.arrays, 64 characters each, y the next
  characters) instead of random offsets into train.bin; one "epoch" is as many iterations as
  twinbench's epoch has batches (ceil(n / batch_size)), so per-epoch times compare.
- no `estimate_loss` (twinbench's gpt validates none: conf `validate: false`), no gradient
  accumulation, DDP, GradScaler/autocast (float32 on a CPU), torch.compile, checkpoints,
  MFU estimate, printing or wandb.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING, Any

from benchmarks.ports import harness

if TYPE_CHECKING:
    import torch

LOG_INTERVAL = 10  # shakespeare_char's log_interval: one loss.item() (a sync) per 10 iterations


def configure_optimizers(model: torch.nn.Module, opt: dict[str, Any]) -> torch.optim.AdamW:
    """nanoGPT's split: matrices decay; biases, LayerNorms and (here) embedding tables do not."""
    import torch
    from torch import nn

    tables = {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
    params = [p for p in model.parameters() if p.requires_grad]  # the tied table once
    decay = [p for p in params if p.dim() >= 2 and id(p) not in tables]
    no_decay = [p for p in params if p.dim() < 2 or id(p) in tables]
    groups = [
        {"params": decay, "weight_decay": opt["weight_decay"]},
        {"params": no_decay, "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(
        groups, lr=opt["lr"], betas=(opt["beta_1"], opt["beta_2"]), eps=opt["eps"]
    )


def get_lr(it: int, opt: dict[str, Any]) -> float:
    """Linear warm-up, then a half cosine down to min_lr, then min_lr."""
    if it < opt["warmup_steps"]:
        return opt["lr"] * (it + 1) / opt["warmup_steps"]
    if it > opt["warmup_steps"] + opt["cosine_steps"]:
        return opt["min_lr"]
    decay_ratio = (it - opt["warmup_steps"]) / opt["cosine_steps"]
    coeff = 0.5 * (1.0 + math.cos(math.pi * decay_ratio))
    return opt["min_lr"] + coeff * (opt["lr"] - opt["min_lr"])


def main() -> None:
    # The CPU budget before torch loads (its thread pools are sized then); imported here, not at
    # the top, so that tests can import this module's functions without pinning themselves.
    b = harness.budget(__doc__)
    import torch
    import torch.nn.functional as F

    from models.gpt import torch_model

    torch.set_num_threads(b.cpus)
    torch.set_num_interop_threads(b.interop_threads or b.cpus)
    torch.manual_seed(1337)  # nanoGPT's seed
    data, cfg = harness.arrays("gpt", b)
    opt, batch_size = cfg["optimizer"], cfg["batch_size"]
    x_train, y_train = torch.from_numpy(data.x_train).long(), torch.from_numpy(data.y_train)

    def get_batch():
        ix = torch.randint(len(x_train), (batch_size,))
        return x_train[ix], y_train[ix]

    model = torch_model(**cfg["arch"])
    optimizer = configure_optimizers(model, opt)
    iters_per_epoch = math.ceil(len(x_train) / batch_size)

    epoch_s = []
    iter_num = 0
    X, Y = get_batch()
    clock = harness.TurnClock()  # perf_counter, less any waits for a partner's turns
    clock.begin()
    for _ in range(b.epochs or cfg["epochs"]):
        clock.epoch_begin()
        for _ in range(iters_per_epoch):
            lr = get_lr(iter_num, opt)
            for param_group in optimizer.param_groups:
                param_group["lr"] = lr
            logits = model(X)
            loss = F.cross_entropy(logits.view(-1, logits.size(-1)), Y.view(-1))
            X, Y = get_batch()  # the next batch, while (on an accelerator) backward runs
            loss.backward()
            if opt["clip_global_norm"]:
                torch.nn.utils.clip_grad_norm_(model.parameters(), opt["clip_global_norm"])
            optimizer.step()
            optimizer.zero_grad(set_to_none=True)
            if iter_num % LOG_INTERVAL == 0:
                loss.item()
            iter_num += 1
            clock.tick()
        epoch_s.append(clock.epoch_end())
    clock.end()
    harness.report(epoch_s, validates=False)


if __name__ == "__main__":
    main()
