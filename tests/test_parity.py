"""Equivalence of each model's two halves (GUIDE §3), each framework in its own process."""

from __future__ import annotations

import numpy as np
import pytest

from twinbench import parity
from twinbench.config import group_choices


@pytest.mark.parametrize("model", group_choices("model"))
def test_both_halves_are_the_same_network(model, tmp_path):
    report = parity.check(model)
    parity.write_certificate(report)  # the pointer result.json carries
    assert report.passed, report.failures
    # 1. parameter counts: equal, and equal to the original Keras model where it is fixed
    assert report.params["torch"] == report.params["tensorflow"]
    if report.expected_params:
        assert report.params["torch"] == report.expected_params
    # 2. forward parity on transferred weights, and a lossless canonical round trip
    assert report.forward_max_abs_diff <= parity.FORWARD_ATOL * 10
    assert report.weight_roundtrip_max_abs_diff == 0.0
    # 3. training parity: tight where the formulas coincide, bounded where they differ
    tight = report.training.get("equal_formula", report.training["configured"])
    assert tight["weight_bound"] == parity.tight_bound(parity.model_config(model)["optimizer"])
    assert tight["weight_max_abs_diff"] <= tight["weight_bound"]
    configured = report.training["configured"]
    assert configured["weight_max_abs_diff"] <= configured["weight_bound"]


def test_max_step_factor_bounds():
    assert parity.max_step_factor({"name": "rmsprop", "rho": 0.9}) == pytest.approx(10**0.5)
    assert parity.max_step_factor({"name": "adam", "beta_1": 0.9, "beta_2": 0.999}) == (
        pytest.approx(0.1 / 0.001**0.5)
    )


def test_tight_bound_scales_with_the_step_an_adaptive_optimizer_can_take():
    rmsprop = {"name": "rmsprop", "rho": 0.9}
    # lr 1e-2 (charlstm): 1e-3 of the 2 * 5 * lr * sqrt(10) two optimizers can drift apart
    assert parity.tight_bound({**rmsprop, "lr": 1e-2}) == pytest.approx(1e-3 * 0.1 * 10**0.5)
    assert parity.tight_bound({**rmsprop, "lr": 1e-4}) == parity.TRAIN_ATOL  # the floor
    assert parity.tight_bound({"name": "adadelta", "lr": 1.0}) == parity.TRAIN_ATOL


def test_moving_variance_may_exceed_keras_only_by_the_unbiased_factor():
    keras_var = np.array([0.5, 1.0, 2.0])
    unbiased = keras_var * (1 + 0.5 / (parity.BATCH - 1))  # half the largest possible excess
    assert parity.moving_variance_excess(keras_var, unbiased) == 0.0
    assert parity.moving_variance_excess(keras_var, keras_var * 1.1) > 0.05  # wrong momentum
    assert parity.moving_variance_excess(keras_var, keras_var * 0.99) > 0.004  # below Keras'
