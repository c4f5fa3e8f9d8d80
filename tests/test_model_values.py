"""A model's own values are checked before a framework loads (twinbench/config/model_values.py):
every shipped workload passes, and a section written for another builder is refused in one line."""

from __future__ import annotations

import pytest

from models import catalog
from twinbench.config.choices import ConfigError
from twinbench.config.model_values import check_model


@pytest.mark.parametrize("name", catalog.names())
def test_every_shipped_workload_passes_its_own_checks(name):
    check_model(catalog.model_config(name))


def test_a_model_section_that_does_not_fit_its_builders_is_refused_naming_the_keys():
    cnn = catalog.model_config("cnn")
    with pytest.raises(ConfigError, match=r"does not fit models/mlp.py torch_model: unknown "):
        check_model({**catalog.model_config("mlp"), "arch": cnn["arch"]})


def test_a_missing_arch_value_is_named():
    mlp = catalog.model_config("mlp")
    arch = {k: v for k, v in mlp["arch"].items() if k != "classes"}
    with pytest.raises(ConfigError, match="missing classes"):
        check_model({**mlp, "arch": arch})


@pytest.mark.parametrize("rate", [-0.1, 1.0, 1.5])
def test_a_dropout_rate_outside_zero_to_one_is_refused(rate):
    mlp = catalog.model_config("mlp")
    with pytest.raises(ConfigError, match="dropout rate"):
        check_model({**mlp, "arch": {**mlp["arch"], "dropout": rate}})
