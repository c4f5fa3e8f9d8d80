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
