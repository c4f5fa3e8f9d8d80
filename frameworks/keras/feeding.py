"""What Keras' fit is fed on every runtime: the training batches in twinbench's shared order,
one epoch per pass, the labels as fit expects them, and the validation samples it scores.

frameworks/keras/common.py trains through these; TensorFlow's adapter feeds the same order
through tf.data instead (frameworks/keras/on_tensorflow.py) and reuses `targets` and `scored`.
"""

from __future__ import annotations

from typing import Any

import keras

from benchdata import Dataset
from frameworks.base import TrainPlan
from frameworks.loop_print import LoopPrint


def targets(model_cfg: dict[str, Any], y):
    """Labels as fit expects them: one entry per head for a model with several (conf
    `loss_weights`; textgen's main and aux heads both predict the next character)."""
    heads = model_cfg.get("loss_weights")
    return {head: y for head in heads} if heads else y


class SharedOrderBatches(keras.utils.PyDataset):
    """The training batches in twinbench's shared order (TrainPlan.orders), one epoch per pass.

    What Keras' array adapter does for fit(x, y, shuffle=True), gathering each batch of numpy
    arrays by a permutation, but with the permutation every backend uses instead of its own.
    workers=1 without multiprocessing: Keras then reads the batches in the training thread,
    one at a time, as it does for numpy arrays on the torch and JAX runtimes.
    """

    def __init__(self, data: Dataset, plan: TrainPlan, model_cfg: dict[str, Any], augment=None):
        super().__init__(workers=1, use_multiprocessing=False)
        self.x, self.y, self.plan, self.model_cfg = data.x_train, data.y_train, plan, model_cfg
        self.augment, self.epoch = augment, 0
        self.fed = LoopPrint()  # what Keras asks this dataset for (frameworks/loop_print.py)

    def __len__(self) -> int:
        return self.plan.steps_per_epoch

    def __getitem__(self, i: int):
        bs = self.plan.batch_size
        if i >= self.plan.steps_per_epoch:  # a look past the epoch's end (EpochSelector)
            raise IndexError(i)
        idx = self.plan.orders[self.epoch][i * bs : (i + 1) * bs]
        x, y = self.x[idx], self.y[idx]
        self.fed.batch(self.epoch, i, idx, (x, y) if i == 0 else None)
        if self.augment is not None:  # training batches only (frameworks/keras/augment.py)
            x = keras.ops.convert_to_numpy(self.augment(x, training=True))
        return x, targets(self.model_cfg, y)


def scored(fed: LoopPrint, data: Dataset, plan: TrainPlan) -> list[dict[str, Any]]:
    """`fed`'s epochs with the validation samples fit scores: validation_steps batches of
    validation_batch_size from x_test (validation()), on the epochs validates() selects. Keras'
    evaluation loop is its own, so this is what it is asked for, not counted inside it."""
    scored_samples = min(len(data.x_test), plan.eval_steps * plan.batch_size)
    for epoch in range(plan.epochs):
        if plan.validates(epoch):
            fed.validated(epoch, scored_samples)
    return fed.epochs()


class EpochSelector(keras.callbacks.Callback):
    """Names the epoch whose order SharedOrderBatches reads: Keras starts an epoch's iteration
    after on_epoch_begin (counting its own on_epoch_end calls would not do: Keras' torch
    data loader asks for a batch past the epoch's last before it ends)."""

    def __init__(self, batches: SharedOrderBatches):
        super().__init__()
        self.batches = batches

    def on_epoch_begin(self, epoch, logs=None):
        self.batches.epoch = epoch
