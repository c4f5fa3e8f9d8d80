"""Native torch's side of bfloat16 parity (twinbench/parity/precision_parity.py): one forward
pass and loss on the probe batch through the training step's own code
(precision.forward_loss), traced by ProductTrace, with the outputs parity compares.

A mutation, when parity's tests ask for one, changes this side only: `float32_layer` keeps that
layer in float32 (precision.keep_float32), `bfloat16_loss` scores the bfloat16 logits as they
are. Each must make parity fail.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

import models
from frameworks.torch_native import precision as torch_precision
from frameworks.torch_native.dtype_trace import ProductTrace, dtype_name
from frameworks.torch_native.objective import Objective


def probe(
    model: nn.Module,
    model_name: str,
    model_cfg: dict[str, Any],
    x: np.ndarray,
    y: np.ndarray,
    precision: str,
    mutation: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """{"ops": the product ops that ran, "loss_dtype", "loss", "variable_dtypes", "probs": the
    primary head's probabilities as float32}."""
    mutation = mutation or {}
    if mutation.get("float32_layer"):
        torch_precision.keep_float32(model.get_submodule(mutation["float32_layer"]))
    objective = Objective.for_model(model_cfg)
    device = next(model.parameters()).device.type
    model.eval()  # inference mode, as the forward check compares (no dropout, BatchNorm stats)
    xt, yt = torch.from_numpy(np.ascontiguousarray(x)), torch.from_numpy(np.ascontiguousarray(y))
    # no_grad, not inference_mode: with autograd's dispatch key left on, composite ops (linear,
    # conv2d, cross_entropy) decompose into the kernels a training step runs (addmm,
    # convolution, _log_softmax), as they do there
    with torch.no_grad(), ProductTrace() as trace:
        loss, logits, _ = torch_precision.forward_loss(
            model, objective, xt, yt, precision, device, not mutation.get("bfloat16_loss")
        )
    module = models.get(model_name)
    if isinstance(logits, dict):  # several heads: the primary one is the prediction
        logits = logits[module.PRIMARY_OUTPUT]
    logits = logits.float()  # probabilities from the logits the loss took
    probs = torch.softmax(logits, -1) if module.OUTPUT == "softmax" else torch.sigmoid(logits)
    return {
        "ops": trace.entries,
        "loss_dtype": dtype_name(loss.dtype),
        "loss": float(loss.float()),
        "variable_dtypes": sorted({dtype_name(p.dtype) for p in model.parameters()}),
        "probs": probs.numpy(),
    }
