"""Run in its own process (Keras picks its runtime at import): which batches Keras' fit asks
SharedOrderBatches (frameworks/keras/feeding.py) for, epoch by epoch, on one backend. Prints
one JSON line.

    python -m tests.keras_order_checks <backend>
"""

from __future__ import annotations

import json
import sys

import numpy as np


def main(backend_name: str) -> None:
    from frameworks import registry

    registry.keep_to_own_runtime(backend_name)  # as in a worker: no other runtime's start-up
    from benchdata import Dataset
    from frameworks import get_backend
    from frameworks.base import TrainPlan
    from frameworks.timing import RunClock

    backend = get_backend(backend_name)  # sets KERAS_BACKEND first, then loads Keras
    from frameworks.keras import common

    requested: list[list[int]] = []
    original = common.SharedOrderBatches.__getitem__

    def spy(self, i):
        batch = original(self, i)
        requested.append(batch[1].tolist())
        return batch

    common.SharedOrderBatches.__getitem__ = spy
    n, bs, epochs, steps = 10, 2, 2, 3
    x = np.random.default_rng(0).random((n, 784), dtype=np.float32)
    y = np.arange(n, dtype=np.int64)  # each row's label is its index: a batch names its rows
    orders = np.stack([np.random.default_rng(e).permutation(n) for e in range(epochs)])
    plan = TrainPlan(epochs, bs, steps, 1, orders, seed=0, device="cpu", validate=False)
    cfg = {
        "name": "mlp",
        "arch": {"input_dim": 784, "hidden": 8, "dropout": 0.0, "classes": 10},
        "optimizer": {"name": "rmsprop", "lr": 1e-3, "rho": 0.9, "eps": 1e-8, "decay": 0.0},
    }
    backend.apply_settings({})
    model = backend.build("mlp", cfg, "cpu")
    backend.train(model, cfg, Dataset("mnist", x, y, x, y, {}), plan, RunClock())
    expected = [
        orders[e][i * bs : (i + 1) * bs].tolist() for e in range(epochs) for i in range(steps)
    ]
    print(json.dumps({"requested": requested, "expected": expected}))


if __name__ == "__main__":
    from twinbench.launch.lifeline import leave_without_teardown

    main(sys.argv[1])
    leave_without_teardown(0)  # printed: skip the framework's teardown (about a second)
