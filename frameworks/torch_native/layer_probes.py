"""torch's side of parity's layer-by-layer forward checks (frameworks/layer_parity.py): the named
layers' outputs inside the model's own inference forward, and each attention layer alone."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import torch
from torch import nn


@torch.no_grad()
def activations(model: nn.Module, x: np.ndarray, layers: list[str]) -> dict[str, np.ndarray]:
    """The outputs of the modules named as Keras' layers, read by forward hooks during the very
    forward predict runs."""
    found: dict[str, np.ndarray] = {}
    hooks = [
        model.get_submodule(name).register_forward_hook(
            lambda _m, _i, out, name=name: found.__setitem__(name, out.numpy().copy())
        )
        for name in layers
    ]
    try:
        model.eval()
        model(torch.from_numpy(x))
    finally:
        for hook in hooks:
            hook.remove()
    return found


@torch.no_grad()
def attention_alone(
    model: nn.Module, layers: list[str], make_input: Callable[[int], np.ndarray]
) -> dict[str, np.ndarray]:
    """Each named SelfAttention module called alone on `make_input(its width)`, in inference
    mode: the module's forward as predict runs it (its kernel, fused or explicit; no dropout)."""
    model.eval()
    found = {}
    for name in layers:
        layer = model.get_submodule(name)
        x = torch.from_numpy(make_input(layer.query.in_features))
        found[name] = layer(x).numpy().copy()
    return found
