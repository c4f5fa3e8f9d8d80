"""Forward parity layer by layer, against bounds measured from what unmutated halves reach.

A transformer's probabilities hide most of a change inside one block: a GELU of another formula
moved gpt's output by 5.8e-6, inside the flat output bound (1e-5 + 1e-4 |p|), while the GELU's own
output moved by thousands of float32 roundings. So each model that names PARITY_LAYERS
(models/<name>.py: layers whose output is the same tensor in both halves) is also compared layer
by layer on the probe batch, in inference mode.

The figure per layer is the largest difference relative to the layer's scale, counted in float32
unit roundoffs u = 2**-24: `max |a - b| / (u * max |a|)`. Two halves that compute the same sums in
other orders differ by a few roundings per product, growing with depth; the bound is a fixed
multiple of what unmutated halves reach (conf/equivalence/default.yaml `forward`, measured over
seeds by `python -m twinbench.parity.spread`, docs/equivalence.md). The probabilities get a
measured absolute bound the same way, tighter than the flat one.

The probe batch's attention is nearly uniform at initial weights (imdb_transformer's 200
positions of small embeddings): a change in how the scores are scaled barely moves its output.
So each attention layer among PARITY_LAYERS is also called alone on a seeded unit-normal input
whose scores spread (the layer "<name>@alone"), judged by the same bound.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import numpy as np

import models
from twinbench.paths import CONF_DIR

UNIT_ROUNDOFF = 2.0**-24  # float32: 24 significant bits, round to nearest
PREFIX = "act:"
ALONE = "@alone"  # an attention layer called alone on attention_input()


@cache
def _settings() -> dict[str, Any]:
    """conf/equivalence/default.yaml (the stochastic checks' settings are there too)."""
    from omegaconf import OmegaConf

    return OmegaConf.to_container(OmegaConf.load(CONF_DIR / "equivalence" / "default.yaml"))


def parity_layers(model_name: str) -> list[str]:
    """The model's layers compared one by one (empty: only its output is compared)."""
    return list(getattr(models.get(model_name), "PARITY_LAYERS", []))


def attention_alone_layers(model_name: str) -> list[str]:
    """The attention layers among PARITY_LAYERS (models/<name>.py LAYERS kind "mha")."""
    kinds = getattr(models.get(model_name), "LAYERS", {})
    return [name for name in parity_layers(model_name) if kinds.get(name) == "mha"]


def compared_layers(model_name: str) -> list[str]:
    """Every figure judge() wants: the PARITY_LAYERS in the model's forward, then each attention
    layer alone."""
    return parity_layers(model_name) + [n + ALONE for n in attention_alone_layers(model_name)]


def attention_input(rows: int, tokens: int, width: int) -> np.ndarray:
    """The seeded (rows, tokens, width) input every half's attention layers are called on alone:
    unit normal, so the scores spread (a standard deviation of order 1 at imdb_transformer's
    initial weights) where the probe batch's are nearly equal, without growing the scores'
    rounding as a larger scale would (conf/equivalence/default.yaml `forward.attention_alone`)."""
    seed = int(_settings()["forward"]["attention_alone"]["seed"])
    return np.random.default_rng(seed).standard_normal((rows, tokens, width)).astype(np.float32)


def bound(model_name: str) -> float | None:
    """This model's bound in float32 roundings of a layer's scale, or None where the model has
    no measured bound (the flat FORWARD_RTOL/ATOL alone applies): conf/equivalence/default.yaml
    `forward`, `multiple` times sqrt(the model's longest sum), since rounding errors of a sum of
    n products grow as sqrt(n) roundings of its scale."""
    conf = _settings().get("forward", {})
    own = conf.get("models", {}).get(model_name)
    if own is None:
        return None
    return float(conf["multiple"]) * float(np.sqrt(own["accumulation"]))


def record(backend: Any, model: Any, model_name: str, x: np.ndarray) -> dict[str, np.ndarray]:
    """Inside a stage: the PARITY_LAYERS' outputs on the probe batch, keyed "act:<layer>"."""
    names = parity_layers(model_name)
    if not names:
        return {}
    found = backend.activations(model, model_name, x, names)
    out = {f"{PREFIX}{name}": np.asarray(found[name], np.float32) for name in names}
    alone = attention_alone_layers(model_name)
    if alone:
        rows, tokens = int(_settings()["forward"]["attention_alone"]["rows"]), x.shape[1]
        called = backend.attention_alone(
            model, model_name, alone, lambda width: attention_input(rows, tokens, width)
        )
        out.update({f"{PREFIX}{n}{ALONE}": np.asarray(called[n], np.float32) for n in alone})
    return out


def scaled_error(reference: np.ndarray, other: np.ndarray) -> float:
    """max |a - b| in float32 roundings of the reference's largest |a| (0 for equal arrays)."""
    scale = float(np.max(np.abs(reference)))
    if scale == 0.0:
        return float(np.max(np.abs(other))) / UNIT_ROUNDOFF
    return float(np.max(np.abs(reference - other))) / (UNIT_ROUNDOFF * scale)


def compare(
    model_name: str, reference: dict[str, np.ndarray], other: dict[str, np.ndarray]
) -> dict[str, Any]:
    """The figures of one pair: each layer's scaled error, the output probabilities' (as one
    more layer, "output"), and this checkout's bound (judge() re-reads the bound, not this)."""
    names = compared_layers(model_name)
    found = {n: other[f"{PREFIX}{n}"] for n in names if f"{PREFIX}{n}" in other}
    figures: dict[str, Any] = {
        "unit": "float32 roundings (2**-24) of the layer's largest |activation|",
        "layers": {n: scaled_error(reference[f"{PREFIX}{n}"], v) for n, v in found.items()},
        "output": scaled_error(reference["probe_out"], other["probe_out"]),
        "output_max_abs_diff": float(np.max(np.abs(reference["probe_out"] - other["probe_out"]))),
        "bound": bound(model_name),
    }
    return figures


def judge(model_name: str, figures: dict[str, Any]) -> list[str]:
    """What fails in `figures` under this checkout's bound (not the bound the figures carry: a
    certificate's word is re-judged on reading). The first layer past it is named, since every
    layer after it inherits the difference."""
    limit = bound(model_name)
    names = compared_layers(model_name)
    seen = figures.get("layers", {})
    failures = []
    missing = [n for n in names if n not in seen]
    if missing:
        failures.append(f"forward: no per-layer figures for {', '.join(missing)}")
    if limit is None:
        return failures
    over = [(n, seen[n]) for n in names if not seen.get(n, 0.0) <= limit]
    output = figures.get("output", float("inf"))
    if not output <= limit:
        over.append(("output", output))
    if over:
        first, value = over[0]
        failures.append(
            f"forward: layer {first} differs by {value:.3g} float32 roundings of its scale "
            f"(bound {limit:.3g}); {len(over)} of {len(names) + 1} compared past it"
        )
    return failures
