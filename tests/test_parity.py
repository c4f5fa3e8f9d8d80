"""Equivalence of each model's two halves (GUIDE §3), each framework in its own process."""

from __future__ import annotations

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
    assert tight["weight_max_abs_diff"] <= parity.TRAIN_ATOL
    configured = report.training["configured"]
    assert configured["weight_max_abs_diff"] <= configured["weight_bound"]


def test_max_step_factor_bounds():
    assert parity.max_step_factor({"name": "rmsprop", "rho": 0.9}) == pytest.approx(10**0.5)
    assert parity.max_step_factor({"name": "adam", "beta_1": 0.9, "beta_2": 0.999}) == (
        pytest.approx(0.1 / 0.001**0.5)
    )
