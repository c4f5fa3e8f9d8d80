"""The dtypes torch really computed its matrix products in, for native torch and Keras on torch.

A TorchDispatchMode sits below autograd and autocast in torch's dispatcher: every aten op it
sees has its operands as autocast (or a Keras dtype policy) left them, so a layer that ran in
float32 inside a bfloat16 autocast region shows as a float32 addmm, whatever the policy said.
"""

from __future__ import annotations

from typing import Any

import torch
from torch.utils import _pytree
from torch.utils._python_dispatch import TorchDispatchMode

from frameworks import product_trace
from frameworks.product_trace import ATTENTION, CONV, LOG, MATMUL, RECURRENT

# aten overload packets that multiply matrices, by kind. linear and conv2d are composite: the
# dispatcher decomposes them into addmm/mm and convolution before this mode sees them, but a
# build that keeps them whole is still caught.
PRODUCT_OPS = {
    **dict.fromkeys(
        ("mm", "addmm", "bmm", "baddbmm", "addbmm", "mv", "addmv", "dot", "matmul", "linear"),
        MATMUL,
    ),
    **dict.fromkeys(
        ("convolution", "_convolution", "mkldnn_convolution", "conv1d", "conv2d", "conv3d"),
        CONV,
    ),
    **dict.fromkeys(
        (
            "_scaled_dot_product_flash_attention_for_cpu",
            "_scaled_dot_product_attention_math",
            "_scaled_dot_product_fused_attention_overrideable",
        ),
        ATTENTION,
    ),
    **dict.fromkeys(("mkldnn_rnn_layer", "_thnn_fused_lstm_cell", "lstm", "gru"), RECURRENT),
    # the loss's logarithm: CrossEntropyLoss decomposes into _log_softmax and nll_loss, Keras'
    # cross-entropy on probabilities takes log
    **dict.fromkeys(
        (
            "log",
            "log1p",
            "xlogy",
            "log_softmax",
            "_log_softmax",
            "nll_loss",
            "nll_loss_forward",
            "log_sigmoid_forward",
            "binary_cross_entropy",
            "binary_cross_entropy_with_logits",
            "cross_entropy_loss",
        ),
        LOG,
    ),
}


def dtype_name(dtype: torch.dtype) -> str:
    return str(dtype).removeprefix("torch.")


class ProductTrace(TorchDispatchMode):
    """Records every product op (and loss logarithm) run inside it (product_trace.entry);
    `entries` in run order."""

    def __init__(self) -> None:
        super().__init__()
        self.entries: list[dict[str, Any]] = []

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        out = func(*args, **(kwargs or {}))
        name = func.overloadpacket.__name__
        kind = PRODUCT_OPS.get(name)
        if kind is not None:
            operands = _pytree.tree_leaves((args, kwargs or {}))
            dtypes = [
                dtype_name(a.dtype)
                for a in operands
                if isinstance(a, torch.Tensor) and a.is_floating_point()
            ]
            first = _pytree.tree_leaves(out)[0]
            # convolution's output is NCHW: channels on axis 1, as canonical_shape takes them
            self.entries.append(product_trace.entry(kind, f"aten.{name}", dtypes, first.shape))
        return out
