"""One framework's half of the image-model checks in tests/test_image_models.py, run in a fresh
process per framework (`python -m tests.image_checks torch|tensorflow WORKDIR`) so that no
process imports torch next to TensorFlow.

It only computes and saves, through the same adapter calls the benchmark and the parity harness
use; the assertions, and the numpy references they compare with, are in the test. Reads
WORKDIR/inputs.npz, writes WORKDIR/<framework>.npz; TensorFlow runs first:
- '<model>/w:<layer>/<weight>': the freshly built (untransferred) model's weights, canonical;
- '<model>/probs': probabilities on '<model>/x' in inference mode, with the Keras model's
  initial weights (torch imports them from tensorflow.npz through the canonical layout);
- '<model>/flops' (torch): FlopCounterMode's count for one sample's forward pass;
- 'augment/first', 'augment/second': two successive training-time augmentations of
  'augment/x' by cifar10_cnn's `augment:` config; 'augment/again': the first one repeated by a
  fresh augmenter with the same seed (TensorFlow: the training pipeline's first two batches,
  and 'augment/labels' the labels it paired with the first).
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import numpy as np

MODELS = ("cnn", "cifar10_cnn", "tl_mlp")
SEED = 7


def main(framework: str, workdir: Path) -> None:
    from frameworks import registry

    registry.keep_to_own_runtime(framework)  # as in a worker: no other runtime's start-up
    from twinbench.machine import cpu

    os.environ.update(cpu.thread_environment(1, 1))
    from frameworks import get_backend
    from models.catalog import model_config

    backend = get_backend(framework)
    backend.configure_threads(1, 1)
    backend.seed(SEED)
    inputs = dict(np.load(workdir / "inputs.npz"))
    out: dict[str, np.ndarray] = {}
    for name in MODELS:
        model = backend.build(name, model_config(name), "cpu")
        initial = backend.export_weights(model, name)
        out.update({f"{name}/w:{key}": value for key, value in initial.items()})
        if framework == "torch":  # runs second: takes the Keras model's weights
            with np.load(workdir / "tensorflow.npz") as keras_out:
                prefix = f"{name}/w:"
                keras_weights = {
                    k[len(prefix) :]: keras_out[k] for k in keras_out if k.startswith(prefix)
                }
            backend.import_weights(model, name, keras_weights)
        out[f"{name}/probs"] = backend.predict(model, name, inputs[f"{name}/x"])
        if framework == "torch":  # torch's own count of one sample's forward pass
            import torch
            from torch.utils.flop_counter import FlopCounterMode

            with FlopCounterMode(display=False) as counter, torch.no_grad():
                model(torch.from_numpy(inputs[f"{name}/x"][:1]))
            out[f"{name}/flops"] = np.array(counter.get_total_flops())

    spec, x = model_config("cifar10_cnn")["augment"], inputs["augment/x"]
    if framework == "torch":
        import torch

        from frameworks.torch_native.augment import make_augment

        aug = make_augment(spec, SEED)
        out["augment/first"] = aug(torch.from_numpy(x)).numpy()
        out["augment/second"] = aug(torch.from_numpy(x)).numpy()
        out["augment/again"] = make_augment(spec, SEED)(torch.from_numpy(x)).numpy()
    else:
        # Through the adapter's own tf.data pipeline: two epochs of one batch holding x in order.
        from benchdata import Dataset
        from frameworks.base import TrainPlan
        from frameworks.keras.augment import make_augment

        n = len(x)
        data = Dataset("augment", x, np.arange(n), x, np.arange(n))
        plan = TrainPlan(2, n, 1, 1, np.stack([np.arange(n)] * 2), SEED, "cpu")

        def batches() -> list[tuple[np.ndarray, np.ndarray]]:
            pipeline = backend._batches(data, plan, make_augment(spec, SEED))
            return [(np.asarray(xb), np.asarray(yb)) for xb, yb in pipeline]

        (first, labels), (second, _) = batches()
        out["augment/first"], out["augment/second"] = first, second
        out["augment/again"] = batches()[0][0]
        out["augment/labels"] = labels
    np.savez(workdir / f"{framework}.npz", **out)


if __name__ == "__main__":
    from twinbench.launch.lifeline import leave_without_teardown

    main(sys.argv[1], Path(sys.argv[2]))
    leave_without_teardown(0)  # printed: skip the framework's teardown (about a second)
