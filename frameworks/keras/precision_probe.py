"""Keras' side of bfloat16 parity (twinbench/parity/precision_parity.py), on any runtime: the
model compiled as a run compiles it, one forward pass and loss on the probe batch traced
(frameworks/keras/dtype_trace.py), and the outputs parity compares.

A mutation, when parity's tests ask for one, changes this side only: `float32_layer` gives that
layer the "float32" dtype policy, `bfloat16_loss` compiles a loss that computes in bfloat16.
Each must make parity fail.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np

import models
from frameworks.keras import dtype_trace
from frameworks.keras.common import KerasBackend, targets
from frameworks.keras.optimizers import make_optimizer

# The compiled losses (frameworks/keras/common.py KERAS_LOSS) as classes, which take a dtype.
LOSS_CLASSES = {
    "softmax": keras.losses.SparseCategoricalCrossentropy,
    "sigmoid": keras.losses.BinaryCrossentropy,
}


def probe(
    backend: KerasBackend,
    model: keras.Model,
    model_name: str,
    model_cfg: dict[str, Any],
    x: np.ndarray,
    y: np.ndarray,
    mutation: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """{"ops": the product ops that ran, "loss_dtype", "loss", "variable_dtypes", "probs": the
    primary head's probabilities as float32}."""
    mutation = mutation or {}
    if mutation.get("float32_layer"):
        model.get_layer(mutation["float32_layer"]).dtype_policy = "float32"
    backend.compile(model, model_cfg)  # the loss a run compiles
    module = models.get(model_name)
    if mutation.get("bfloat16_loss"):
        model.compile(
            optimizer=make_optimizer(model_cfg["optimizer"]),
            loss=LOSS_CLASSES[module.OUTPUT](dtype="bfloat16"),
        )
    ops, y_pred, loss = dtype_trace.trace(model, x, targets(model_cfg, y))
    if isinstance(y_pred, dict):  # several heads: the primary one is the prediction
        y_pred = y_pred[module.PRIMARY_OUTPUT]
    standard = keras.backend.standardize_dtype
    return {
        "ops": ops,
        "loss_dtype": standard(loss.dtype),
        "loss": float(keras.ops.convert_to_numpy(keras.ops.cast(loss, "float32"))),
        "variable_dtypes": sorted({standard(v.dtype) for v in model.trainable_weights}),
        "probs": np.asarray(keras.ops.convert_to_numpy(keras.ops.cast(y_pred, "float32"))),
    }
