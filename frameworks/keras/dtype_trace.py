"""The dtypes Keras really computed its matrix products in, on each runtime: one forward pass
and the compiled loss (the calls Keras' train_step makes: model(x), compute_loss) on a batch.

Read from what the runtime runs, never from the dtype policy:
- TensorFlow: the tf.function graph of the forward pass and loss, its MatMul / BatchMatMul /
  Conv ops (and the loss's Log) and the dtypes of their inputs (the graph the runtime
  executes; its optimizer fuses ops but keeps their dtypes);
- JAX: the jaxpr of Keras' own stateless compute_loss_and_updates (what its jitted train step
  differentiates), every dot_general and conv_general_dilated (and log), nested jaxprs included;
- torch: torch's dispatcher (frameworks/torch_native/dtype_trace.py), as for native torch.

Each tracer returns (the product entries of frameworks/product_trace.py, the predictions, the
loss). Only the runtime Keras loaded is imported.
"""

from __future__ import annotations

from typing import Any

import keras
import numpy as np

from frameworks import product_trace
from frameworks.product_trace import CONV, LOG, MATMUL

Traced = tuple[list[dict[str, Any]], Any, Any]

TF_PRODUCTS = {
    **dict.fromkeys(
        ("MatMul", "BatchMatMul", "BatchMatMulV2", "BatchMatMulV3", "_FusedMatMul", "Einsum"),
        MATMUL,
    ),
    **dict.fromkeys(("Conv2D", "Conv3D", "DepthwiseConv2dNative", "_FusedConv2D"), CONV),
    **dict.fromkeys(
        (
            "Log",
            "Log1p",
            "Xlogy",
            "LogSoftmax",
            "SparseSoftmaxCrossEntropyWithLogits",
            "SoftmaxCrossEntropyWithLogits",
        ),
        LOG,
    ),
}
JAX_PRODUCTS = {"dot_general": MATMUL, "conv_general_dilated": CONV, "log": LOG, "log1p": LOG}


def trace(model: keras.Model, x: np.ndarray, y: Any) -> Traced:
    """The forward pass and loss on the runtime Keras runs on, traced."""
    runtime = keras.backend.backend()
    tracer = {"tensorflow": _tensorflow, "jax": _jax, "torch": _torch}.get(runtime)
    if tracer is None:
        raise NotImplementedError(f"no dtype trace for Keras on {runtime}")
    # Once untraced first: the compiled loss builds itself (and any tracker variables) on its
    # first call, which a JAX trace or a tf.function must not be the one to do.
    _forward_loss(model, x, y)
    return tracer(model, x, y)


def _forward_loss(model: keras.Model, x, y):
    y_pred = model(x, training=False)
    return y_pred, model.compute_loss(x=x, y=y, y_pred=y_pred, training=False)


def _tensorflow(model: keras.Model, x: np.ndarray, y: Any) -> Traced:
    import tensorflow as tf

    fn = tf.function(lambda a, b: _forward_loss(model, a, b))
    specs = tf.nest.map_structure(lambda a: tf.TensorSpec(a.shape, a.dtype), (x, y))
    concrete = fn.get_concrete_function(*specs)
    entries = []
    for op in concrete.graph.get_operations():
        kind = TF_PRODUCTS.get(op.type)
        if kind is None:
            continue
        dtypes = [t.dtype.name for t in op.inputs if t.dtype.is_floating]
        channel_axis = 1
        if kind == CONV:  # NHWC on CPU: channels last, in data_format's own spelling
            data_format = op.get_attr("data_format").decode()
            channel_axis = data_format.index("C")
        shape = op.outputs[0].shape.as_list()
        entries.append(product_trace.entry(kind, op.type, dtypes, shape, channel_axis))
    y_pred, loss = concrete(*tf.nest.map_structure(tf.constant, (x, y)))
    return entries, y_pred, loss


def _jax(model: keras.Model, x: np.ndarray, y: Any) -> Traced:
    import jax

    state = (
        [v.value for v in model.trainable_variables],
        [v.value for v in model.non_trainable_variables],
        [v.value for v in model.metrics_variables],
    )

    def forward_loss(trainable, non_trainable, metrics, a, b):
        loss, (_, y_pred, _, _) = model.compute_loss_and_updates(
            trainable, non_trainable, metrics, a, b, None, training=False
        )
        return y_pred, loss

    closed = jax.make_jaxpr(forward_loss)(*state, x, y)
    entries: list[dict[str, Any]] = []
    _walk_jaxpr(closed.jaxpr, entries)
    y_pred, loss = jax.jit(forward_loss)(*state, x, y)  # as the train step runs it: jitted
    return entries, y_pred, loss


def _walk_jaxpr(jaxpr: Any, entries: list[dict[str, Any]]) -> None:
    """Every product equation in `jaxpr` and the jaxprs nested in its equations' parameters
    (pjit, custom_jvp_call, cond branches, scan bodies), in order."""
    for eqn in jaxpr.eqns:
        kind = JAX_PRODUCTS.get(eqn.primitive.name)
        if kind is not None:
            dtypes = [str(v.aval.dtype) for v in eqn.invars]
            channel_axis = 1
            if kind == CONV:  # out_spec: (batch axis, feature axis, spatial axes...)
                channel_axis = eqn.params["dimension_numbers"].out_spec[1]
            shape = eqn.outvars[0].aval.shape
            entries.append(
                product_trace.entry(kind, eqn.primitive.name, dtypes, shape, channel_axis)
            )
        for param in eqn.params.values():
            for sub in param if isinstance(param, (tuple, list)) else (param,):
                if hasattr(sub, "eqns"):
                    _walk_jaxpr(sub, entries)
                elif hasattr(getattr(sub, "jaxpr", None), "eqns"):
                    _walk_jaxpr(sub.jaxpr, entries)


def _torch(model: keras.Model, x: np.ndarray, y: Any) -> Traced:
    import torch

    from frameworks.torch_native.dtype_trace import ProductTrace

    with torch.no_grad(), ProductTrace() as found:
        y_pred, loss = _forward_loss(model, x, y)
    return found.entries, y_pred, loss
