"""torch's optimizers for the Keras ones conf/ names (make_optimizer), and torch's side of
`optimizer.formula` (frameworks/optimizer_formula.py).

torch's RMSprop and Adadelta compute the 2017 formula as shipped. Its Adam (since 1.0) adds
epsilon after the bias correction, lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps);
Keras 2.0, tf.train.AdamOptimizer and torch 0.x added it before,
lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps). The two are equal when torch's eps at
step t is eps / sqrt(1 - b2^t), so the 2017 formula runs torch's own Adam kernel (for-loop,
foreach or fused alike) with that epsilon set before each step: one float per step, no new kernel.
"""

from __future__ import annotations

import math
from typing import Any

import torch

from frameworks import optimizer_formula, settings


def use_2017_adam_epsilon(optimizer: torch.optim.Adam) -> None:
    """Before each step t (from 1), set each group's eps to eps / sqrt(1 - beta_2^t)."""
    configured = [group["eps"] for group in optimizer.param_groups]
    taken = [0]

    def before_step(opt, args, kwargs) -> None:
        taken[0] += 1
        for group, eps in zip(opt.param_groups, configured, strict=True):
            group["eps"] = eps / math.sqrt(1.0 - group["betas"][1] ** taken[0])

    optimizer.register_step_pre_hook(before_step)


def adamw(params, spec: dict[str, Any], fused: bool, embeddings=frozenset()) -> torch.optim.AdamW:
    """torch's AdamW, weight decay only on the weights `optimizer_formula.decays` names.

    torch parameters carry no Keras names: `embeddings` holds the ids of the embedding tables;
    any other parameter of two or more dimensions is a kernel (Linear), one of one dimension a
    bias or a LayerNorm scale/offset.
    """
    params = [p for p in params if p.requires_grad]

    def decays(p: torch.Tensor) -> bool:
        name = "embeddings" if id(p) in embeddings else "kernel" if p.dim() >= 2 else "bias"
        return optimizer_formula.decays(spec, name)

    decayed, kept = [p for p in params if decays(p)], [p for p in params if not decays(p)]
    groups = [
        {"params": decayed, "weight_decay": float(spec["weight_decay"])},
        {"params": kept, "weight_decay": 0.0},
    ]
    return torch.optim.AdamW(
        [g for g in groups if g["params"]],
        lr=spec["lr"],
        betas=(spec["beta_1"], spec["beta_2"]),
        eps=spec["eps"],
        amsgrad=False,
        fused=fused or None,
    )


def schedule(optimizer: torch.optim.Optimizer, spec: dict[str, Any]):
    """The warm-up and cosine schedule of `optimizer_formula.learning_rate` as a LambdaLR (its
    factor multiplies the configured lr), or None where the rate is constant."""
    if not optimizer_formula.scheduled(spec):
        return None
    lr = float(spec["lr"])
    return torch.optim.lr_scheduler.LambdaLR(
        optimizer, lambda t: optimizer_formula.learning_rate(spec, t) / lr
    )


def make_optimizer(params, spec: dict[str, Any], fused: bool | str = False, embeddings=frozenset()):
    """torch's built-in optimizer for the Keras one named in conf/, hyperparameters mapped 1:1.

    `optimizer.formula` "2017" (the default) gives Adam the 2017 epsilon placement
    (frameworks/torch_native/optimizers.py); torch's RMSprop and Adadelta already compute it.
    """
    name = spec["name"]
    # backend.fused_optimizer: torch's fused kernel (one pass over all parameters) where it has
    # one; "auto" takes it where available and says so in the settings report.
    use_fused = bool(fused) and name in settings.FUSED_OPTIMIZERS
    if fused is True and not use_fused:
        raise settings.SettingError(f"backend.fused_optimizer=true: torch has no fused {name}")
    if name == "rmsprop":
        opt = torch.optim.RMSprop(
            params, lr=spec["lr"], alpha=spec["rho"], eps=spec["eps"], momentum=0.0, centered=False
        )
    elif name == "adadelta":
        opt = torch.optim.Adadelta(params, lr=spec["lr"], rho=spec["rho"], eps=spec["eps"])
    elif name == "adam":
        opt = torch.optim.Adam(
            params,
            lr=spec["lr"],
            betas=(spec["beta_1"], spec["beta_2"]),
            eps=spec["eps"],
            amsgrad=False,
            fused=use_fused or None,
        )
    elif name == "adamw":
        opt = adamw(params, spec, use_fused, embeddings)
    else:
        raise ValueError(f"optimizer '{name}' is not mapped for torch")
    if optimizer_formula.replaced(spec, "torch"):
        use_2017_adam_epsilon(opt)
    if optimizer_formula.scheduled(spec):  # warm-up and cosine (optimizer_formula.py)
        return opt, schedule(opt, spec)
    decay = spec.get("decay", 0.0)
    # Keras 2's `decay`: lr_t = lr / (1 + decay * t), t counted in optimizer steps.
    decayed = (
        torch.optim.lr_scheduler.LambdaLR(opt, lambda t: 1.0 / (1.0 + decay * t)) if decay else None
    )
    return opt, decayed
