"""A model's own values, checked before anything starts: what the kinds of its yaml's values
cannot say. A dropout rate of 1.5 is a float like 0.2, and ten classes written as two is a whole
number like ten; without these checks both failed only inside the framework, after start-up,
with its traceback.
"""

from __future__ import annotations

import inspect
from collections.abc import Mapping
from typing import Any

import models
from benchdata.classes import classes_of
from twinbench.config.choices import ConfigError

# arch keys that hold a dropout rate (dropout, conv_dropout, input_dropout, ...): a fraction of
# units zeroed, so 0 <= rate < 1 (1 would zero every unit and scale by infinity)
RATE_SUFFIX = "dropout"


def check_model(model: Mapping[str, Any]) -> None:
    """Rates in range, the class count the data has, and arch keys that fit both builders."""
    arch = model.get("arch") or {}
    for key, value in arch.items():
        if key.endswith(RATE_SUFFIX) and value is not None and not 0 <= value < 1:
            raise ConfigError(f"model.arch.{key} is a dropout rate: 0 <= rate < 1, got {value}")
    dataset = model.get("dataset")
    classes = classes_of(dataset)
    if arch.get("classes") is not None and classes is not None and arch["classes"] != classes:
        raise ConfigError(
            f"model.arch.classes={arch['classes']} but the {dataset} data has {classes} classes "
            f"(labels 0..{classes - 1})"
        )
    _fits_builders(str(model.get("name")), arch)
    _agrees_with_view(model)
    check_arch = getattr(models.get(str(model.get("name"))), "check_arch", None)
    if check_arch is not None:  # a model's own constraints (heads dividing width, ...)
        try:
            check_arch(**arch)
        except ValueError as e:
            raise ConfigError(str(e)) from None


# arch key -> the view key that makes the data it reads: a model built for longer windows or a
# larger vocabulary than the view gives fails inside the framework (a position or a word id out
# of its tables), so the two must agree before anything starts.
VIEW_SIZES = {"maxlen": "maxlen", "max_features": "num_words"}


def _agrees_with_view(model: Mapping[str, Any]) -> None:
    arch, view = model.get("arch") or {}, model.get("view")
    if not isinstance(view, Mapping):
        return
    for key, view_key in VIEW_SIZES.items():
        if key == "max_features" and view.get("ngram_range", 1) != 1:
            continue  # fastText's bigram ids lie beyond num_words: benchdata.fill_arch checks
        ours, data = arch.get(key), view.get(view_key)
        if ours is not None and data is not None and ours != data:
            raise ConfigError(
                f"model.arch.{key}={ours} but model.view.{view_key}={data}: the model must be "
                f"built for the data's size (set both, or only model.view.{view_key})"
            )


def _fits_builders(name: str, arch: Mapping[str, Any]) -> None:
    """Every arch key is a parameter of both halves, and every parameter without a default is
    given: a model section written for another builder is refused before a framework loads."""
    module = models.get(name)
    for builder in (getattr(module, half) for half in models.BUILDERS):
        params = inspect.signature(builder).parameters
        if any(p.kind is p.VAR_KEYWORD for p in params.values()):
            continue
        unknown = sorted(set(arch) - set(params))
        missing = sorted(
            p.name
            for p in params.values()
            if p.default is p.empty and p.kind is not p.VAR_POSITIONAL and p.name not in arch
        )
        if unknown or missing:
            problem = "; ".join(
                [f"unknown {', '.join(unknown)}"] * bool(unknown)
                + [f"missing {', '.join(missing)}"] * bool(missing)
            )
            raise ConfigError(
                f"model.arch does not fit models/{name}.py {builder.__name__}: {problem}"
            )
