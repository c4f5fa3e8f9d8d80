"""The loss and accuracy native torch trains with, on logits, for a model's output activation
and heads (conf `loss_weights`): what the training loop, the profiler, parity and the bare-loop
benchmark all score with."""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

import models


class Objective:
    """Loss and correct-prediction count for a model's output activation, on logits.

    A model with several heads (conf `loss_weights`, e.g. textgen's main and aux) returns a dict
    of logits, every head predicting the same targets: the loss is the weighted sum of the
    heads' losses, as Keras' `loss_weights`, and accuracy is the primary head's.
    """

    def __init__(
        self,
        output: str,
        loss_weights: dict[str, float] | None = None,
        primary: str | None = None,
    ):
        self.output = output
        self.loss_weights = dict(loss_weights) if loss_weights else None
        self.primary = primary
        if self.loss_weights and primary not in self.loss_weights:
            raise ValueError(f"primary output {primary!r} is not among {list(self.loss_weights)}")
        if output == "softmax":
            self.loss = nn.CrossEntropyLoss()
        elif output == "sigmoid":
            self.loss = nn.BCEWithLogitsLoss()
        else:
            raise ValueError(f"unsupported output activation '{output}'")

    @classmethod
    def for_model(cls, model_cfg: dict[str, Any]) -> Objective:
        module = models.get(model_cfg["name"])
        return cls(
            module.OUTPUT, model_cfg.get("loss_weights"), getattr(module, "PRIMARY_OUTPUT", None)
        )

    def __call__(self, logits, y: torch.Tensor) -> torch.Tensor:
        if self.loss_weights:
            return sum(w * self._loss(logits[head], y) for head, w in self.loss_weights.items())
        return self._loss(logits, y)

    def _loss(self, logits: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
        if self.output == "sigmoid":
            return self.loss(logits.squeeze(-1), y.to(logits.dtype))
        # A label per position (gpt: [batch, time]): the mean over every position, as Keras'
        # sparse categorical crossentropy takes it; CrossEntropyLoss wants classes second.
        return self.loss(logits.flatten(0, -2), y.flatten())

    def correct(self, logits, y: torch.Tensor) -> torch.Tensor:
        if self.loss_weights:
            logits = logits[self.primary]
        if self.output == "sigmoid":
            return ((logits.squeeze(-1) > 0) == y.bool()).sum()
        return (logits.argmax(dim=-1) == y).sum()
