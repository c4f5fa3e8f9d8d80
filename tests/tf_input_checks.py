"""Run by tests/test_tf_input.py in a fresh process (TensorFlow only), printing JSON:
- what fit validates on with TensorFlowBackend.validation, against what Keras' own array adapter
  cuts from the same numpy arrays (the input the 2017 scripts and twinbench before 2026-12-02
  gave fit), and the val_loss fit logs from each, from the same weights;
- the training batches TensorFlowBackend._batches feeds fit: their rows, and the batch dimension
  Keras' traced step is given, for an epoch of full batches and for one ending on a partial one.
"""

from __future__ import annotations

import json

import numpy as np

from benchdata import Dataset
from frameworks import get_backend
from frameworks.base import TrainPlan
from models.catalog import model_config

BATCH = 16
N_TEST = 75  # not a multiple of BATCH: the last batch is partial
N_TRAIN = 50  # three full batches and a partial one of 2 rows


def batches(dataset) -> list[list[float]]:
    """Each batch as (rows, sum of x, sum of y): enough to tell a batch moved or cut."""
    return [
        [int(x.shape[0]), float(np.sum(x)), float(np.sum(y))]
        for x, y in dataset.as_numpy_iterator()
    ]


def main() -> None:
    from frameworks import registry

    registry.keep_to_own_runtime("tensorflow")  # as in a worker: no other runtime's start-up
    import keras
    from keras.src.trainers.data_adapters.array_data_adapter import ArrayDataAdapter

    backend = get_backend("tensorflow")
    backend.configure_threads(1, 1)
    rng = np.random.default_rng(0)
    x, y = rng.random((N_TEST, 784), dtype=np.float32), rng.integers(0, 10, N_TEST)
    data = Dataset("mnist", x[:BATCH], y[:BATCH], x, y)
    cfg = model_config("mlp")
    out = {}
    for eval_steps in (5, 3):  # every test sample (5 batches, the last of 11), or a cap of 3
        plan = TrainPlan(1, BATCH, 1, eval_steps, np.arange(BATCH)[None], 0, "cpu", verbose=False)
        given = backend.validation(cfg, data, plan)
        ours = given["validation_data"].take(eval_steps)
        keras_own = ArrayDataAdapter(x, y, batch_size=BATCH, shuffle=False).get_tf_dataset()
        model = keras.Sequential([keras.Input((784,)), keras.layers.Dense(10, "softmax")])
        model.compile(keras.optimizers.SGD(0.0), "sparse_categorical_crossentropy")
        weights = model.get_weights()
        logs = {}
        for name, validation in {
            "ours": given,
            "numpy": {"validation_data": (x, y), "validation_batch_size": BATCH,
                      "validation_steps": eval_steps},
        }.items():  # fmt: skip
            model.set_weights(weights)
            hist = model.fit(x[:BATCH], y[:BATCH], batch_size=BATCH, verbose=0, **validation)
            logs[name] = hist.history["val_loss"][0]
        out[str(eval_steps)] = {
            "ours": batches(ours),
            "keras": batches(keras_own.take(eval_steps)),
            "autotune": bool(given["validation_data"].options().autotune.enabled),
            "val_loss": logs,
            "validation_keys": sorted(given),
        }
    out["training"] = training_batches(backend)
    print(json.dumps(out))


def training_batches(backend) -> dict[str, dict]:
    """Per plan: each training batch's rows in order, and the batch dimension of the batches'
    spec (null: unknown when Keras traces its step)."""
    rng = np.random.default_rng(1)
    x, y = rng.random((N_TRAIN, 4), dtype=np.float32), rng.integers(0, 10, N_TRAIN)
    data = Dataset("toy", x, y, x[:BATCH], y[:BATCH])
    order = rng.permutation(N_TRAIN)[None]
    found = {}
    for name, steps in {"full batches": 3, "partial last batch": 4}.items():
        plan = TrainPlan(1, BATCH, steps, 0, order, 0, "cpu", verbose=False)
        dataset = backend._batches(data, plan)
        row_of = {float(v): i for i, v in enumerate(x[:, 0])}  # x's first column names its row
        found[name] = {
            "rows": [[row_of[float(v)] for v in xb[:, 0]] for xb, _ in dataset.as_numpy_iterator()],
            "batch_dim": dataset.element_spec[0].shape[0],
            "order": order[0].tolist(),
        }
    return found


if __name__ == "__main__":
    from twinbench.launch.lifeline import leave_without_teardown

    main()
    leave_without_teardown(0)  # printed: skip the framework's teardown (about a second)
