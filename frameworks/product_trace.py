"""One entry of a dtype trace: a matrix product or convolution a backend ran (or a logarithm of
its loss), with the dtypes of its operands as they reached the op (after autocast or a dtype
policy had cast them) and its output shape in one layout every backend can be compared in.

The tracers that fill it read what ran, never what a policy says:
frameworks/torch_native/dtype_trace.py (native torch and Keras on torch, through torch's
dispatcher) and frameworks/keras/dtype_trace.py (Keras on TensorFlow and JAX, from the traced
graph or jaxpr). twinbench/parity/precision_parity.py compares two backends' traces.
Framework-free, so the comparison imports no framework.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

MATMUL, CONV, ATTENTION, RECURRENT = "matmul", "conv", "attention", "recurrent"
# A logarithm: the loss's (cross-entropy's log or log-softmax; the forward passes take none, a
# softmax is exp and a quotient). A Keras loss computed in bfloat16 is cast to float32 before
# compute_loss returns it, so the loss's dtype is read here, where it was computed.
LOG = "log"
PRODUCTS = (MATMUL, CONV, ATTENTION, RECURRENT)


def canonical_shape(kind: str, shape: Sequence[int], channel_axis: int = 1) -> list[int]:
    """The output shape as every backend can state it.

    A matrix product's leading dimensions are flattened into rows ([rows, columns]): torch
    multiplies a [batch, heads, t, t] attention as bmm on [batch * heads, t, t] and a Dense on
    [batch, t, d] as mm on [batch * t, d], where TensorFlow keeps the batch dimensions. A
    convolution's is [batch, channels, *spatial] whatever the layout it ran in (torch NCHW,
    TensorFlow and JAX NHWC), with spatial sizes of 1 dropped: TensorFlow runs a 1-D
    convolution as a 2-D one of height 1.
    """
    shape = [int(s) for s in shape]
    if kind == MATMUL and len(shape) >= 2:
        return [math.prod(shape[:-1]), shape[-1]]
    if kind == CONV and len(shape) >= 3:
        spatial = [s for i, s in enumerate(shape) if i not in (0, channel_axis) and s != 1]
        return [shape[0], shape[channel_axis], *spatial]
    return shape


def entry(
    kind: str, op: str, dtypes: Sequence[str], shape: Sequence[int], channel_axis: int = 1
) -> dict[str, Any]:
    """A trace entry: the kind of product, the framework's own op name, the dtypes of its
    floating-point operands in argument order, and its canonical output shape."""
    return {
        "kind": kind,
        "op": op,
        "dtypes": list(dtypes),
        "shape": canonical_shape(kind, shape, channel_axis),
    }
