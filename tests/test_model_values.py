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


@pytest.mark.parametrize(
    ("name", "change", "message"),
    [
        ("gpt", {"heads": 3}, "heads=3 does not divide arch.width=128"),
        ("gpt", {"attention": "flash"}, "arch.attention must be one of"),
        ("imdb_transformer", {"attention": "flash"}, "arch.attention must be one of"),
        ("gpt", {"maxlen": 128}, "arch.maxlen=128 but model.view.maxlen=64"),
        ("imdb_transformer", {"max_features": 30000}, "max_features=30000 but model.view.num"),
    ],
)
def test_a_transformer_the_data_or_its_heads_cannot_fit_is_refused_in_one_line(
    name, change, message
):
    """A context longer than the data's windows, a vocabulary other than the data's, heads that
    do not divide the width, an unknown attention kernel: each failed inside the framework."""
    model = catalog.model_config(name)
    with pytest.raises(ConfigError, match=message):
        check_model({**model, "arch": {**model["arch"], **change}})


def test_imdb_transformer_heads_need_not_divide_the_width_since_key_dim_is_its_own():
    model = catalog.model_config("imdb_transformer")
    check_model({**model, "arch": {**model["arch"], "heads": 3}})
