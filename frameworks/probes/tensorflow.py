"""TensorFlow's kernels: oneDNN (or Eigen) MatMul and its Conv2D ops, eager."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
import tensorflow as tf  # after its log level: E402 is not selected here

from frameworks.probes import conv_shapes


def _done(t: Any) -> Any:
    """Eager CPU ops return when done; one element read back makes sure of it."""
    return t[(0,) * len(t.shape)].numpy()


def gemm(size: int) -> tuple[Callable[[], Any], str]:
    a, b = (tf.random.normal((size, size)) for _ in range(2))
    onednn = os.environ.get("TF_ENABLE_ONEDNN_OPTS", "1") != "0"
    return (lambda: _done(tf.linalg.matmul(a, b))), (
        f"tensorflow ({'oneDNN' if onednn else 'Eigen'} MatMul)"
    )


def gemm_bf16(size: int) -> tuple[Callable[[], Any], str]:
    a, b = (tf.cast(tf.random.normal((size, size)), tf.bfloat16) for _ in range(2))
    onednn = os.environ.get("TF_ENABLE_ONEDNN_OPTS", "1") != "0"
    return (lambda: _done(tf.linalg.matmul(a, b))), (
        f"tensorflow ({'oneDNN' if onednn else 'Eigen'} MatMul, bfloat16)"
    )


def kernel_op(op: str, shape: tuple[int, ...]) -> Callable[[], Any] | None:
    if op == "gemm":
        m, k, n = shape
        x, y = tf.random.normal((m, k)), tf.random.normal((k, n))
        return lambda: _done(tf.linalg.matmul(x, y))
    b, oh, ow, ci, co, k, ih, iw = conv_shapes(shape)
    x, w = tf.random.normal((b, ih, iw, ci)), tf.random.normal((k, k, ci, co))
    gy, one = tf.random.normal((b, oh, ow, co)), [1, 1, 1, 1]
    if op == "conv2d":
        return lambda: _done(tf.nn.conv2d(x, w, 1, "VALID"))
    if op == "conv2d_input_grad":
        sizes = tf.constant([b, ih, iw, ci])
        return lambda: _done(
            tf.raw_ops.Conv2DBackpropInput(
                input_sizes=sizes, filter=w, out_backprop=gy, strides=one, padding="VALID"
            )
        )
    sizes = tf.constant([k, k, ci, co])
    return lambda: _done(
        tf.raw_ops.Conv2DBackpropFilter(
            input=x, filter_sizes=sizes, out_backprop=gy, strides=one, padding="VALID"
        )
    )
