"""The torch loop's validation pass, in a module of its own: the training loop calls it after
each validated epoch, and parity's validation probe (stochastic.validation_probe) pushes a probe
batch through this very function, so a certificate fingerprints exactly the code that validates.
"""

from __future__ import annotations

import torch
from torch import nn

from frameworks.torch_native import precision as torch_precision
from frameworks.torch_native.objective import Objective


@torch.inference_mode()
def evaluate(
    model: nn.Module,
    objective: Objective,
    x: torch.Tensor,
    y: torch.Tensor,
    bs: int,
    steps: int,
    precision: str,
) -> tuple[float, float, int]:
    """Validation loss and accuracy, each batch weighted by its samples, and the samples. The
    batches reach the model as sliced from the test set: never augmented."""
    model.eval()
    loss_sum, correct, seen, labels = 0.0, 0, 0, 0
    for step in range(steps):
        xb, yb = x[step * bs : (step + 1) * bs], y[step * bs : (step + 1) * bs]
        with torch_precision.autocast(precision, x.device.type):  # as Keras evaluates
            logits = torch_precision.float32_logits(model(xb))
        loss_sum += objective(logits, yb).item() * len(yb)
        correct += objective.correct(logits, yb).item()
        seen, labels = seen + len(yb), labels + yb.numel()  # a label per position (gpt)
    return loss_sum / seen, correct / labels, seen
