"""torch's kernels: MKL (or BLAS) sgemm, and its convolutions with autograd's own backward."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

from frameworks.probes import conv_shapes


def gemm(size: int) -> tuple[Callable[[], Any], str]:
    a, b = (torch.randn(size, size) for _ in range(2))
    kernel = "MKL sgemm" if torch.backends.mkl.is_available() else "BLAS sgemm"
    return (lambda: torch.mm(a, b)), f"torch ({kernel})"


def gemm_bf16(size: int) -> tuple[Callable[[], Any], str]:
    """bfloat16 inputs, float32 accumulation: oneDNN's bf16 matmul where torch may use it
    (a CPU with bf16 or AVX-512 support), else torch's own bf16 GEMM, which converts."""
    a, b = (torch.randn(size, size, dtype=torch.bfloat16) for _ in range(2))
    onednn = torch.ops.mkldnn._is_mkldnn_bf16_supported()
    kernel = "oneDNN bf16 matmul" if onednn else "native bf16 GEMM, converted to float32"
    return (lambda: torch.mm(a, b)), f"torch ({kernel})"


def kernel_op(op: str, shape: tuple[int, ...]) -> Callable[[], Any] | None:
    if op == "gemm":
        m, k, n = shape
        x, y = torch.randn(m, k), torch.randn(k, n)
        return lambda: torch.mm(x, y)
    b, oh, ow, ci, co, k, ih, iw = conv_shapes(shape)
    x, w, gy = torch.randn(b, ci, ih, iw), torch.randn(co, ci, k, k), torch.randn(b, co, oh, ow)
    if op == "conv2d":
        return lambda: torch.nn.functional.conv2d(x, w)
    # autograd's own backward of a convolution; the mask picks the input or weight gradient
    mask = [op == "conv2d_input_grad", op == "conv2d_weight_grad", False]
    return lambda: torch.ops.aten.convolution_backward(
        gy, x, w, None, [1, 1], [0, 0], [1, 1], False, [0, 0], 1, mask
    )
