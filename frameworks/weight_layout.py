"""Canonical weights (Keras' layout) <-> torch's layout, per layer kind. numpy only.

Canonical weights are a dict '<layer>/<weight>' -> array in the shapes Keras stores: Dense kernel
(in, out), Conv2D kernel (kh, kw, in, out). torch stores Linear weight (out, in) and Conv2d weight
(out, in, kh, kw). Each kind below names both directions so they can be tested as inverses.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

Arrays = dict[str, np.ndarray]


def _dense_to_torch(w: Arrays) -> Arrays:
    out = {"weight": w["kernel"].T}
    if "bias" in w:
        out["bias"] = w["bias"]
    return out


def _dense_from_torch(t: Arrays) -> Arrays:
    out = {"kernel": t["weight"].T}
    if "bias" in t:
        out["bias"] = t["bias"]
    return out


TO_TORCH: dict[str, Callable[[Arrays], Arrays]] = {"dense": _dense_to_torch}
FROM_TORCH: dict[str, Callable[[Arrays], Arrays]] = {"dense": _dense_from_torch}


def split(weights: Arrays) -> dict[str, Arrays]:
    """'<layer>/<weight>' keys grouped by layer."""
    layers: dict[str, Arrays] = {}
    for key, value in weights.items():
        layer, _, name = key.rpartition("/")
        layers.setdefault(layer, {})[name] = value
    return layers


def canonical_to_torch_state(layers: dict[str, str], weights: Arrays) -> Arrays:
    """A torch state_dict (as numpy) for a module whose submodules carry the canonical names."""
    grouped, state = split(weights), {}
    for layer, kind in layers.items():
        for name, value in TO_TORCH[kind](grouped[layer]).items():
            state[f"{layer}.{name}"] = np.ascontiguousarray(value)
    return state


def torch_state_to_canonical(layers: dict[str, str], state: Arrays) -> Arrays:
    weights = {}
    for layer, kind in layers.items():
        prefix = f"{layer}."
        own = {k[len(prefix) :]: v for k, v in state.items() if k.startswith(prefix)}
        for name, value in FROM_TORCH[kind](own).items():
            weights[f"{layer}/{name}"] = np.ascontiguousarray(value)
    return weights
