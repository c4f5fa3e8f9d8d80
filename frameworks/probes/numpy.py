"""numpy's BLAS: GEMMs only (numpy has no convolution kernel of its own)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np


def gemm(size: int) -> tuple[Callable[[], Any], str]:
    from threadpoolctl import threadpool_info

    rng = np.random.default_rng(0)
    a, b = (rng.standard_normal((size, size), dtype=np.float32) for _ in range(2))
    blas = [p["internal_api"] for p in threadpool_info() if p["user_api"] == "blas"]
    return (lambda: a @ b), f"numpy ({'/'.join(blas) or 'BLAS'})"


def kernel_op(op: str, shape: tuple[int, ...]) -> Callable[[], Any] | None:
    if op != "gemm":
        return None
    m, k, n = shape
    rng = np.random.default_rng(0)
    x, y = rng.standard_normal((m, k), np.float32), rng.standard_normal((k, n), np.float32)
    return lambda: x @ y
