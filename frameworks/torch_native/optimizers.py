"""torch's side of `optimizer.formula` (frameworks/optimizer_formula.py).

torch's RMSprop and Adadelta compute the 2017 formula as shipped. Its Adam (since 1.0) adds
epsilon after the bias correction, lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps);
Keras 2.0, tf.train.AdamOptimizer and torch 0.x added it before,
lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps). The two are equal when torch's eps at
step t is eps / sqrt(1 - b2^t), so the 2017 formula runs torch's own Adam kernel (for-loop,
foreach or fused alike) with that epsilon set before each step: one float per step, no new kernel.
"""

from __future__ import annotations

import math

import torch


def use_2017_adam_epsilon(optimizer: torch.optim.Adam) -> None:
    """Before each step t (from 1), set each group's eps to eps / sqrt(1 - beta_2^t)."""
    configured = [group["eps"] for group in optimizer.param_groups]
    taken = [0]

    def before_step(opt, args, kwargs) -> None:
        taken[0] += 1
        for group, eps in zip(opt.param_groups, configured, strict=True):
            group["eps"] = eps / math.sqrt(1.0 - group["betas"][1] ** taken[0])

    optimizer.register_step_pre_hook(before_step)
