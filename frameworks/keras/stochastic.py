"""Keras' side of the stochastic parity probes that need the model or a training loop: each
dropout layer's effect in a training forward, and what fit's validation pass hands the network
(twinbench/parity/draws.py asks; the certificate fingerprints this file).
torch's counterpart is frameworks/torch_native/stochastic.py."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import keras
import numpy as np

from benchdata import Dataset
from frameworks.base import TrainPlan
from frameworks.dropout_effect import site_figures


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


def attention_dropout_probe(
    model: keras.Model, causal: bool, tokens: int, draws: int, seed: int
) -> list[tuple[str, float, dict[str, float]]]:
    """Every MultiHeadAttention's dropout judged by its effect (torch_native/stochastic.py
    says how): the layer's own projections, then its _compute_attention in training mode,
    which is where Keras chooses between ops.dot_product_attention (fused) and its explicit
    path with the Dropout layer, as call() does; against the explicit p / (1 - p) sum A^2 v^2
    at the layer's declared rate. `causal`: the model calls its attention with the causal mask."""
    ops = keras.ops
    found = []
    layers = model._flatten_layers(include_self=False, recursive=True)
    for layer in [la for la in layers if isinstance(la, keras.layers.MultiHeadAttention)]:
        rate = float(layer.dropout)
        width = int(layer._query_dense.kernel.shape[0])
        x = np.random.default_rng(seed).standard_normal((1, tokens, width)).astype("float32")
        q, k, v = (d(x) for d in (layer._query_dense, layer._key_dense, layer._value_dense))
        mask = ops.tril(ops.ones((tokens, tokens), dtype="bool"))[None] if causal else None
        # The draws as one batch of copies: each row draws its own dropout mask.
        tiled = [ops.repeat(a, draws, axis=0) for a in (q, k, v)]
        result = layer._compute_attention(*tiled, attention_mask=mask, training=True)
        out = result[0] if isinstance(result, tuple) else result
        drawn = np.asarray(ops.convert_to_numpy(out), np.float64)
        # The explicit reference, in float64 numpy: (1, t, heads, head_dim) -> per head.
        qn, kn, vn = (np.asarray(ops.convert_to_numpy(a), np.float64) for a in (q, k, v))
        scores = np.einsum("bthd,bshd->bhts", qn, kn) / np.sqrt(layer._key_dim)
        if causal:
            scores = np.where(np.tril(np.ones((tokens, tokens), bool)), scores, -np.inf)
        probs = np.exp(scores - scores.max(axis=-1, keepdims=True))
        probs /= probs.sum(axis=-1, keepdims=True)
        expected = (rate / (1.0 - rate)) * np.einsum("bhts,bshd->bthd", probs**2, vn**2)
        observed = np.var(drawn, axis=0, ddof=1)
        total = float(expected.sum())
        found.append(
            (
                layer.name,
                rate,
                {
                    "variance_ratio": float(observed.sum()) / total if total > 0 else 0.0,
                    "observed_variance": float(observed.sum()),
                    "expected_variance": total,
                },
            )
        )
    return found


def dropout_in_forward(model: keras.Model, x: np.ndarray) -> dict[str, dict[str, float]]:
    """Each Dropout layer with a rate (nested ones included: an attention layer's own too,
    which Keras calls on its explicit path whenever the rate is above 0) in one training-mode
    forward on `x`, by its effect: its rate, how often it ran, how many nonzero values it was
    handed and how many of those it zeroed; then how much it alone moves the model's output
    (`output_change`). Each layer's call is wrapped on the instance for
    this one eager forward, so a layer called with training=False, or not at all, shows."""
    sites = {
        layer.name: layer
        for layer in model._flatten_layers(include_self=False, recursive=True)
        if isinstance(layer, keras.layers.Dropout) and layer.rate > 0
    }
    found = {
        name: {"rate": float(layer.rate), "calls": 0, "inputs": 0, "zeroed": 0}
        for name, layer in sites.items()
    }

    def counting(name: str, call: Callable[..., Any]) -> Callable[..., Any]:
        def counted(inputs: Any, *args: Any, **kwargs: Any) -> Any:
            out = call(inputs, *args, **kwargs)
            nonzero = np.asarray(keras.ops.convert_to_numpy(inputs)) != 0
            dropped = np.asarray(keras.ops.convert_to_numpy(out)) == 0
            found[name]["calls"] += 1
            found[name]["inputs"] += int(nonzero.sum())
            found[name]["zeroed"] += int((nonzero & dropped).sum())
            return out

        return counted

    for name, layer in sites.items():
        layer.call = counting(name, layer.call)
    try:
        model(x, training=True)
    finally:
        for layer in sites.values():
            del layer.call  # the class's own method again
    for name, layer in sites.items():
        found[name].update(_output_change(model, layer, x))
    return found


def _output_change(
    model: keras.Model, site: keras.layers.Dropout, x: np.ndarray
) -> dict[str, float]:
    """`site` measured alone (frameworks/dropout_effect.py): the model in inference mode, this one
    Dropout's call told training=True, on two copies of `x` in one batch, each drawing its own
    mask; how much it moves the output, and what it is handed."""
    call = site.call
    handed: list[np.ndarray] = []

    def training(inputs: Any, *args: Any, **kwargs: Any) -> Any:
        handed.append(np.asarray(keras.ops.convert_to_numpy(inputs)))
        return call(inputs, *args, **{**kwargs, "training": True})

    site.call = training
    try:
        out = model(np.concatenate([x, x]), training=False)
    finally:
        del site.call
    return site_figures(np.asarray(keras.ops.convert_to_numpy(out)), handed)
