"""Run in its own process (Keras picks its runtime at import): a tiny real training loop on one
backend, printing its loop fingerprint (frameworks/loop_print.py) as one JSON line.

    python -m tests.loop_print_checks <backend> [mutation]

10 training samples in batches of 4 (a partial last batch of 2), 7 validation samples (a
partial last batch of 3), 2 epochs. A mutation changes one line of what this side is given:
"other-order" reverses every epoch's batch order, "drop-partial-validation" scores full
validation batches only.
"""

from __future__ import annotations

import json
import sys

import numpy as np

N_TRAIN, N_TEST, BATCH, EPOCHS = 10, 7, 4, 2


def main(backend_name: str, mutation: str | None = None) -> None:
    from frameworks import registry

    registry.keep_to_own_runtime(backend_name)  # as in a worker: no other runtime's start-up
    from benchdata import Dataset, batching
    from frameworks import get_backend
    from frameworks.base import TrainPlan
    from frameworks.timing import RunClock

    backend = get_backend(backend_name)
    rng = np.random.default_rng(0)
    x = rng.random((N_TRAIN + N_TEST, 784), dtype=np.float32)
    y = rng.integers(0, 10, N_TRAIN + N_TEST)
    data = Dataset("mnist", x[:N_TRAIN], y[:N_TRAIN], x[N_TRAIN:], y[N_TRAIN:], {})
    orders = batching.epoch_permutations(N_TRAIN, EPOCHS, seed=0)
    eval_steps = batching.steps_per_epoch(N_TEST, BATCH)
    if mutation == "other-order":
        orders = orders[:, ::-1].copy()
    elif mutation == "drop-partial-validation":
        eval_steps = N_TEST // BATCH
    elif mutation is not None:
        raise ValueError(f"unknown mutation {mutation!r}")
    steps = batching.steps_per_epoch(N_TRAIN, BATCH)
    plan = TrainPlan(EPOCHS, BATCH, steps, eval_steps, orders, seed=0, device="cpu", verbose=False)
    cfg = {
        "name": "mlp",
        "loss": "sparse_categorical_crossentropy",
        "arch": {"input_dim": 784, "hidden": 8, "dropout": 0.0, "classes": 10},
        "optimizer": {"name": "rmsprop", "lr": 1e-3, "rho": 0.9, "eps": 1e-8, "decay": 0.0},
    }
    backend.apply_settings({})
    model = backend.build("mlp", cfg, "cpu")
    history = backend.train(model, cfg, data, plan, RunClock())
    print(json.dumps(history.loop))


if __name__ == "__main__":
    from twinbench.launch.lifeline import leave_without_teardown

    main(*sys.argv[1:3])
    leave_without_teardown(0)  # printed: skip the framework's teardown (about a second)
