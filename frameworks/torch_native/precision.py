"""Mixed bfloat16 for native torch, as torch's AMP recipe: the forward pass under
torch.autocast (matrix products and convolutions in bfloat16), the loss on float32 logits, the
weights and the optimizer state left in float32 (bfloat16 needs no loss scaling)."""

from __future__ import annotations

import contextlib

import torch


def autocast(precision: str, device: str) -> contextlib.AbstractContextManager:
    """bfloat16 autocast for a bfloat16 run, nothing for float32."""
    if precision != "bfloat16":
        return contextlib.nullcontext()
    return torch.autocast(device_type=device, dtype=torch.bfloat16)


def float32_logits(logits):
    """The loss is computed in float32 whatever the forward pass ran in (one head or several)."""
    if isinstance(logits, dict):
        return {k: v.float() for k, v in logits.items()}
    return logits.float()


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


def logits_dtype(logits) -> str:
    first = next(iter(logits.values())) if isinstance(logits, dict) else logits
    return dtype_name(first.dtype)


def forward_loss(forward, objective, x, y, precision: str, device: str, float32_loss: bool = True):
    """The forward pass and loss of one training step -> (loss, the logits the loss took, the
    dtype the forward pass produced them in): the training step and parity's dtype trace
    (frameworks/torch_native/precision_probe.py) run this one code. `float32_loss=False` scores
    the logits as the forward pass left them, the mistake bfloat16 parity must catch."""
    with autocast(precision, device):
        logits = forward(x)
    produced = logits_dtype(logits)
    if float32_loss:
        logits = float32_logits(logits)  # a float32 loss in every run
    return objective(logits, y), logits, produced


def keep_float32(module: torch.nn.Module) -> None:
    """Run `module` outside autocast on float32 inputs, as AMP recipes keep a sensitive layer in
    float32; bfloat16 parity's proof that such a layer on one side is caught uses it."""
    forward = module.forward
    device = next(module.parameters()).device.type

    def float32_forward(*args, **kwargs):
        args = tuple(
            a.float() if isinstance(a, torch.Tensor) and a.is_floating_point() else a for a in args
        )
        with torch.autocast(device_type=device, enabled=False):
            return forward(*args, **kwargs)

    module.forward = float32_forward
