"""Keras 3 on JAX (KERAS_BACKEND=jax): the Keras models, compile and fit of
frameworks/keras/common.py, traced by JAX and compiled by XLA (jit_compile, Keras' default on
JAX).

XLA has no call that sets or reports its CPU thread count. The registry entry sets PJRT_NPROC
(and, for one thread, turns off Eigen's multi-threaded kernels) before import, which sizes the
XLA client's intra-op pool; configure_threads counts that pool's threads in /proc after the first
computation and fails on a mismatch. The ThreadReport says so in `verified_by`.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

os.environ["KERAS_BACKEND"] = "jax"  # before keras loads; KerasBackend checks it took
import jax
import jax.numpy as jnp

from frameworks.base import ThreadMismatchError, ThreadReport
from frameworks.keras.common import KerasBackend

XLA_POOL_THREAD = "tf_XLAEigen"  # the name XLA's CPU client gives its intra-op pool threads


def _threads_named(name: str) -> int:
    count = 0
    for task in Path("/proc/self/task").iterdir():
        try:
            count += (task / "comm").read_text().strip() == name
        except OSError:  # a thread that ended while we looked
            continue
    return count


def _native_pools() -> list[dict[str, Any]]:
    from threadpoolctl import threadpool_info

    return [
        {k: p.get(k) for k in ("user_api", "internal_api", "prefix", "num_threads")}
        for p in threadpool_info()
    ]


class KerasJaxBackend(KerasBackend):
    name = "keras_jax"
    runtime = "jax"

    def configure_threads(self, intra_op: int, inter_op: int) -> ThreadReport:
        # The client, and its pools, start with the first computation.
        (jnp.ones((64, 64)) @ jnp.ones((64, 64))).block_until_ready()
        pool = _threads_named(XLA_POOL_THREAD)
        env = {k: os.environ.get(k) for k in ("PJRT_NPROC", "XLA_FLAGS")}
        if pool != intra_op:
            raise ThreadMismatchError(
                f"XLA's CPU pool runs {pool} threads, requested {intra_op} (environment {env}): "
                "PJRT_NPROC must be set before jax is imported"
            )
        return ThreadReport(
            intra_op=pool,
            # XLA runs one computation's ops on the intra-op pool; it has no inter-op pool to
            # size, so the requested figure stands, bounded by the affinity mask.
            inter_op=inter_op,
            native_pools=_native_pools(),
            verified_by=(
                f"intra-op: {pool} '{XLA_POOL_THREAD}' threads counted in /proc/self/task after "
                f"the first computation, pool sized by {env}; inter-op: XLA has no inter-op "
                "pool, every thread is bounded by the process's CPU affinity"
            ),
        )

    def describe(self) -> dict[str, Any]:
        import jaxlib

        return {
            **super().describe(),
            "version": jax.__version__,
            "build": {
                "jaxlib": jaxlib.__version__,
                "devices": [str(d) for d in jax.devices()],
                "XLA_FLAGS": os.environ.get("XLA_FLAGS"),
                "PJRT_NPROC": os.environ.get("PJRT_NPROC"),
            },
        }

    def check_device(self, device: str) -> None:
        if device == "cuda" and not any(d.platform == "gpu" for d in jax.devices()):
            raise RuntimeError("device=cuda but jax sees no GPU (CPU-only jaxlib installed)")
