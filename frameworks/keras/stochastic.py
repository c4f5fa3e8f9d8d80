"""Keras' side of the stochastic parity probes that need a training loop: what fit's validation
pass hands the network (twinbench/parity/draws.py asks; the certificate fingerprints this file).
torch's counterpart is frameworks/torch_native/stochastic.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import keras
import numpy as np

from benchdata import Dataset
from frameworks.base import TrainPlan


def validation_probe(
    validation: Callable[[dict[str, Any], Dataset, TrainPlan], dict[str, Any]],
    model_cfg: dict[str, Any],
    x: np.ndarray,
) -> np.ndarray:
    """`x` as fit's validation pass sees it in a run: handed over by validation() (the
    validation_data every Keras runtime's train() gives fit) and read by the first layer of
    a stand-in network in inference mode. It should come back unchanged."""
    seen: list[np.ndarray] = []
    validating = []  # set once fit starts validating: before, Keras calls the model in
    # inference mode to build its metrics (on a traced batch on JAX), and trains after

    class Recorder(keras.layers.Layer):
        def call(self, inputs, training=None):
            if validating:
                seen.append(np.array(keras.ops.convert_to_numpy(inputs), copy=True))
            return inputs

        def compute_output_shape(self, input_shape):  # built symbolically: nothing to read
            return input_shape

    bs = min(len(x), 500)
    inputs = keras.Input(x.shape[1:])
    pooled = keras.layers.GlobalAveragePooling2D()(Recorder()(inputs))
    outputs = keras.layers.Dense(int(model_cfg["arch"]["classes"]), "softmax")(pooled)
    model = keras.Model(inputs, outputs)
    # Eager, so the recorder reads concrete batches; the data path is the same.
    model.compile("sgd", "sparse_categorical_crossentropy", run_eagerly=True)
    y = np.zeros(len(x), "int32")
    data = Dataset("probe", x[:bs], y[:bs], x, y)
    plan = TrainPlan(1, bs, 1, len(x) // bs, np.arange(bs)[None], 0, "cpu")
    on_validation = keras.callbacks.LambdaCallback(
        on_test_begin=lambda logs: validating.append(True)
    )
    model.fit(x[:bs], y[:bs], batch_size=bs, **validation(model_cfg, data, plan),
              callbacks=[on_validation], verbose=0)  # fmt: skip
    return np.concatenate(seen)
