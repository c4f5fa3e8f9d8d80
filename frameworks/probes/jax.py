"""JAX's kernels through XLA's CPU backend: dot and the forward convolution, each jitted and
waited for. The convolution gradients are not probed (XLA fuses them into the step; a lone
transpose-convolution would not be what the model runs): None, so the speed of light takes
them from the other libraries."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp

from frameworks.probes import conv_shapes


def gemm(size: int) -> tuple[Callable[[], Any], str]:
    ka, kb = jax.random.split(jax.random.PRNGKey(0))
    a, b = jax.random.normal(ka, (size, size)), jax.random.normal(kb, (size, size))
    dot = jax.jit(jnp.dot)
    return (lambda: dot(a, b).block_until_ready()), "jax (XLA CPU dot)"


def gemm_bf16(size: int) -> tuple[Callable[[], Any], str]:
    ka, kb = jax.random.split(jax.random.PRNGKey(0))
    a, b = (jax.random.normal(k, (size, size), dtype=jnp.bfloat16) for k in (ka, kb))
    dot = jax.jit(jnp.dot)
    return (lambda: dot(a, b).block_until_ready()), "jax (XLA CPU dot, bfloat16)"


def kernel_op(op: str, shape: tuple[int, ...]) -> Callable[[], Any] | None:
    key = jax.random.PRNGKey(0)
    if op == "gemm":
        m, k, n = shape
        x, y = jax.random.normal(key, (m, k)), jax.random.normal(key, (k, n))
        dot = jax.jit(jnp.dot)
        return lambda: dot(x, y).block_until_ready()
    if op != "conv2d":
        return None
    b, _oh, _ow, ci, co, k, ih, iw = conv_shapes(shape)
    x, w = jax.random.normal(key, (b, ih, iw, ci)), jax.random.normal(key, (k, k, ci, co))
    conv = jax.jit(
        lambda x, w: jax.lax.conv_general_dilated(
            x, w, (1, 1), "VALID", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
    )
    return lambda: conv(x, w).block_until_ready()
