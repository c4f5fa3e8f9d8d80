"""tl_mlp as TensorLayer's tutorial trains it: load_mnist_dataset's validation split and
tl.utils.fit's validation epochs, both framework-neutral (numpy and the training plan)."""

from __future__ import annotations

import numpy as np
import pytest

from benchdata import holdout, load
from frameworks.base import TrainPlan
from models.catalog import model_config


@pytest.fixture(scope="module")
def mnist():
    return load("mnist", "synthetic", seed=0, view="flat")


def test_tl_mlp_trains_on_the_first_50000_and_validates_on_the_last_10000(mnist):
    split = holdout.apply(mnist, model_config("tl_mlp"))
    assert len(split.x_train) == len(split.y_train) == 50_000
    assert len(split.x_test) == len(split.y_test) == 10_000
    assert np.array_equal(split.x_train, mnist.x_train[:50_000])
    assert np.array_equal(split.x_test, mnist.x_train[50_000:])  # not the test set
    assert np.array_equal(split.y_test, mnist.y_train[50_000:])
    assert "last 10000 training examples" in split.info["validation"]


def test_models_without_the_key_keep_the_test_set(mnist):
    assert holdout.apply(mnist, model_config("mlp")) is mnist


@pytest.mark.parametrize("n", [0, 60_000])
def test_a_hold_out_that_leaves_nothing_is_refused(mnist, n):
    with pytest.raises(ValueError, match="needs 0 < N < 60000"):
        holdout.hold_out(mnist, n)


def _plan(epochs: int, every: int, validate: bool = True) -> TrainPlan:
    return TrainPlan(epochs, 1, 1, 1, None, 0, "cpu", validate=validate, validate_every=every)


def test_validation_epochs_follow_tensorlayers_fit_the_first_and_every_kth():
    assert _plan(12, 5).validation_epochs() == [1, 5, 10]
    assert [_plan(6, 5).validates(e) for e in range(6)] == [1, 0, 0, 0, 1, 0]
    assert _plan(3, 1).validation_epochs() == [1, 2, 3]
    assert _plan(6, 5, validate=False).validation_epochs() == []
    assert len(_plan(500, 5).validation_epochs()) == 101  # the tutorial's 500 epochs
