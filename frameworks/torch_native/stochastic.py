"""torch's side of parity's stochastic probes (twinbench/parity/draws.py): each dropout layer in
training mode, and the training-time augmentation, exactly as the torch loop applies them; and
what the loop's validation pass hands the model (it must be the test batch, unaugmented)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from frameworks.torch_native import augment as torch_augment
from frameworks.torch_native import evaluate as torch_evaluate
from frameworks.torch_native.objective import Objective


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


class _Recorder(nn.Module):
    """Stands in for the network: keeps each batch it is given, answers zero logits."""

    def __init__(self, classes: int):
        super().__init__()
        self.classes, self.seen = classes, []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.seen.append(x.detach().cpu().numpy().copy())
        return torch.zeros(len(x), self.classes)


def validation_probe(model_cfg: dict[str, Any], x: np.ndarray, precision: str) -> np.ndarray:
    """`x` as the torch loop's validation pass (torch_native/evaluate.py, the function train()
    calls) hands it to the model, batch by batch: it should come back unchanged."""
    classes = int(model_cfg["arch"]["classes"])
    recorder, bs = _Recorder(classes), min(len(x), 500)
    y = torch.zeros(len(x), dtype=torch.int64)
    torch_evaluate.evaluate(
        recorder, Objective.for_model(model_cfg), torch.from_numpy(x), y, bs, len(x) // bs,
        precision,
    )  # fmt: skip
    return np.concatenate(recorder.seen)
