"""torch's side of parity's stochastic probes (twinbench/parity/draws.py): each dropout layer in
training mode, and the training-time augmentation, exactly as the torch loop applies them."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from frameworks.torch_native import augment as torch_augment


@torch.no_grad()
def dropout_probe(model: nn.Module, units: int) -> list[tuple[str, float, np.ndarray]]:
    """Every dropout module (nested ones included, definition order) on `units` ones."""
    ones = torch.ones(1, units)
    found = []
    for name, layer in model.named_modules():
        if isinstance(layer, nn.modules.dropout._DropoutNd):
            was_training = layer.training
            layer.train()
            out = layer(ones)
            layer.train(was_training)
            found.append((name, float(layer.p), out.numpy().reshape(-1)))
    return found


def augment_probe(model_cfg: dict[str, Any], x: np.ndarray, seed: int) -> np.ndarray | None:
    """`x` through the very builder the torch loop applies to its training batches."""
    augment = torch_augment.make_augment(model_cfg.get("augment"), seed, "cpu")
    return None if augment is None else augment(torch.from_numpy(x)).numpy()
