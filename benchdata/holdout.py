"""A validation set cut from the training set, as TensorLayer's load_mnist_dataset does.

TensorLayer's MNIST tutorials train on the first 50,000 training images and validate on the
last 10,000 of them (X_val = X_train[-10000:]); the test set is left for a final test. A model
that asks for this (conf/model `hold_out_for_validation: N`) gets the last N training examples
as its validation arrays (Dataset.x_test/y_test, which both training loops validate on) and
trains on the rest. Numpy slices of the one loaded dataset: both frameworks get the same arrays.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from benchdata import Dataset


def hold_out(data: Dataset, n: int) -> Dataset:
    """`data` training on all but its last `n` training examples and validating on those."""
    if not 0 < n < len(data.x_train):
        raise ValueError(
            f"hold_out_for_validation={n}: needs 0 < N < {len(data.x_train)} (the training set)"
        )
    info = {**data.info, "validation": f"last {n} training examples (test set unused)"}
    return replace(
        data,
        x_train=data.x_train[:-n],
        y_train=data.y_train[:-n],
        x_test=data.x_train[-n:],
        y_test=data.y_train[-n:],
        info=info,
    )


def apply(data: Dataset, model_cfg: dict[str, Any]) -> Dataset:
    """The data a model trains and validates on: `data`, or its held-out split where the model
    config asks for one."""
    n = model_cfg.get("hold_out_for_validation")
    return data if n is None else hold_out(data, int(n))
