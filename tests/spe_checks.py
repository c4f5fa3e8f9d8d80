"""Run by tests/test_steps_per_execution.py in a fresh process (TensorFlow only): trains a small
mlp for a few epochs whose step count is not a multiple of steps_per_execution, with 1 and with
10 steps per execution from the same weights, and prints what each saw as JSON."""

from __future__ import annotations

import json

import numpy as np

from benchdata import Dataset
from frameworks import get_backend
from frameworks.base import TrainPlan
from frameworks.timing import RunClock
from models.catalog import model_config

BATCH, STEPS, EPOCHS = 16, 13, 3  # 13 steps per epoch: 10 + 3 under steps_per_execution=10


def main() -> None:
    from frameworks import registry

    registry.keep_to_own_runtime("tensorflow")  # as in a worker: no other runtime's start-up
    backend = get_backend("tensorflow")
    backend.configure_threads(1, 1)
    rng = np.random.default_rng(0)
    n = BATCH * STEPS
    x, y = rng.random((n, 784), dtype=np.float32), rng.integers(0, 10, n).astype(np.int64)
    cfg = model_config("mlp")
    cfg["arch"]["dropout"] = 0.0
    orders = np.stack([rng.permutation(n) for _ in range(EPOCHS)])
    plan = TrainPlan(EPOCHS, BATCH, STEPS, 1, orders, 0, "cpu", verbose=False)
    data = Dataset("mnist", x, y, x[:BATCH], y[:BATCH])
    initial, out = None, {}
    for per_call in (1, 10):
        backend.seed(0)
        model = backend.build("mlp", cfg, "cpu")
        if initial is None:
            initial = backend.export_weights(model, "mlp")
        backend.import_weights(model, "mlp", initial)
        backend.settings = {"steps_per_execution": per_call}
        clock = RunClock()
        history = backend.train(model, cfg, data, plan, clock)
        out[per_call] = {
            "loss": history.loss,
            "ticks_per_epoch": [len(ticks) for ticks in clock.step_end_ns],
            "weights": {k: v.tolist() for k, v in backend.export_weights(model, "mlp").items()},
        }
    print(json.dumps(out))


if __name__ == "__main__":
    from twinbench.launch.lifeline import leave_without_teardown

    main()
    leave_without_teardown(0)  # printed: skip the framework's teardown (about a second)
