"""Canonical weights (Keras' layout) <-> torch's layout, per layer kind. numpy only.

Canonical weights are a dict '<layer>/<weight>' -> array in the shapes Keras stores: Dense kernel
(in, out), Conv2D kernel (kh, kw, in, out). torch stores Linear weight (out, in) and Conv2d weight
(out, in, kh, kw). Each kind below names both directions so they can be tested as inverses.
A weight name may itself be a path: an LSTM's are 'lstm_cell/kernel' etc., as Keras 3 stores them.
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


def _conv2d_to_torch(w: Arrays) -> Arrays:
    # Keras (kh, kw, in, out) -> torch (out, in, kh, kw). Both frameworks compute a
    # cross-correlation, so the kernel is not flipped, only its axes reordered.
    out = {"weight": w["kernel"].transpose(3, 2, 0, 1)}
    if "bias" in w:
        out["bias"] = w["bias"]
    return out


def _conv2d_from_torch(t: Arrays) -> Arrays:
    out = {"kernel": t["weight"].transpose(2, 3, 1, 0)}
    if "bias" in t:
        out["bias"] = t["bias"]
    return out


def _embedding_to_torch(w: Arrays) -> Arrays:
    return {"weight": w["embeddings"]}  # (input_dim, output_dim) in both


def _embedding_from_torch(t: Arrays) -> Arrays:
    return {"embeddings": t["weight"]}


# LSTM: Keras 3 keeps its cell's weights under '<layer>/lstm_cell/': kernel (in, 4u), recurrent
# kernel (u, 4u) and one bias (4u). torch has weight_ih (4u, in), weight_hh (4u, u) and two
# biases that are added. The gate blocks come in the same order in both (input, forget,
# cell/g, output), so a transpose is all the kernels need; Keras' bias goes whole into bias_ih
# and bias_hh is zero, and the way back adds the two, which is exact for such a pair.
LSTM_CELL = "lstm_cell/"
# Bidirectional(LSTM(..., name="lstm")) in Keras 3 names its copies forward_lstm/backward_lstm;
# torch's bidirectional nn.LSTM suffixes the backward direction's parameters with _reverse.
BIDIRECTIONAL = {"forward_lstm/": "", "backward_lstm/": "_reverse"}


def _lstm_to_torch(w: Arrays, suffix: str = "") -> Arrays:
    bias = w[LSTM_CELL + "bias"]
    return {
        f"weight_ih_l0{suffix}": w[LSTM_CELL + "kernel"].T,
        f"weight_hh_l0{suffix}": w[LSTM_CELL + "recurrent_kernel"].T,
        f"bias_ih_l0{suffix}": bias,
        f"bias_hh_l0{suffix}": np.zeros_like(bias),
    }


def _lstm_from_torch(t: Arrays, suffix: str = "") -> Arrays:
    return {
        LSTM_CELL + "kernel": t[f"weight_ih_l0{suffix}"].T,
        LSTM_CELL + "recurrent_kernel": t[f"weight_hh_l0{suffix}"].T,
        LSTM_CELL + "bias": t[f"bias_ih_l0{suffix}"] + t[f"bias_hh_l0{suffix}"],
    }


def _bilstm_to_torch(w: Arrays) -> Arrays:
    out: Arrays = {}
    for prefix, suffix in BIDIRECTIONAL.items():
        own = {k.removeprefix(prefix): v for k, v in w.items() if k.startswith(prefix)}
        out.update(_lstm_to_torch(own, suffix))
    return out


def _bilstm_from_torch(t: Arrays) -> Arrays:
    return {
        prefix + name: value
        for prefix, suffix in BIDIRECTIONAL.items()
        for name, value in _lstm_from_torch(t, suffix).items()
    }


# BatchNormalization: the same four vectors under other names. torch's num_batches_tracked has
# no Keras counterpart (it only matters for momentum=None) and is left as it is.
BATCHNORM = {
    "gamma": "weight",
    "beta": "bias",
    "moving_mean": "running_mean",
    "moving_variance": "running_var",
}


def _batchnorm_to_torch(w: Arrays) -> Arrays:
    return {BATCHNORM[k]: v for k, v in w.items()}


def _batchnorm_from_torch(t: Arrays) -> Arrays:
    return {k: t[v] for k, v in BATCHNORM.items()}


# LayerNormalization: scale and offset under torch's names (both (width,)).
LAYERNORM = {"gamma": "weight", "beta": "bias"}


def _layernorm_to_torch(w: Arrays) -> Arrays:
    return {LAYERNORM[k]: v for k, v in w.items()}


def _layernorm_from_torch(t: Arrays) -> Arrays:
    return {k: t[v] for k, v in LAYERNORM.items()}


# MultiHeadAttention: Keras keeps per-head kernels, query/key/value (width, heads, head_dim)
# with (heads, head_dim) biases and attention_output (heads, head_dim, width); torch's
# projections (models/torch_transformer.py) are Linear layers over the heads' concatenation,
# heads major, so a reshape and a transpose carry each one. torch's module holds the head count
# as a buffer ("heads"): its (heads * head_dim, width) matrices do not say it.
PROJECTIONS = ("query", "key", "value")


def _mha_to_torch(w: Arrays) -> Arrays:
    width, heads, head_dim = w["query/kernel"].shape
    out = {"heads": np.array(heads)}
    for p in PROJECTIONS:
        out[f"{p}.weight"] = w[f"{p}/kernel"].reshape(width, heads * head_dim).T
        out[f"{p}.bias"] = w[f"{p}/bias"].reshape(heads * head_dim)
    kernel = w["attention_output/kernel"]
    out["attention_output.weight"] = kernel.reshape(heads * head_dim, kernel.shape[-1]).T
    out["attention_output.bias"] = w["attention_output/bias"]
    return out


def _mha_from_torch(t: Arrays) -> Arrays:
    heads = int(t["heads"])
    inner, width = t["query.weight"].shape
    head_dim = inner // heads
    out = {}
    for p in PROJECTIONS:
        out[f"{p}/kernel"] = t[f"{p}.weight"].T.reshape(width, heads, head_dim)
        out[f"{p}/bias"] = t[f"{p}.bias"].reshape(heads, head_dim)
    out["attention_output/kernel"] = t["attention_output.weight"].T.reshape(heads, head_dim, -1)
    out["attention_output/bias"] = t["attention_output.bias"]
    return out


TO_TORCH: dict[str, Callable[[Arrays], Arrays]] = {
    "dense": _dense_to_torch,
    "conv2d": _conv2d_to_torch,
    "embedding": _embedding_to_torch,
    "lstm": _lstm_to_torch,
    "bilstm": _bilstm_to_torch,
    "batchnorm": _batchnorm_to_torch,
    "layernorm": _layernorm_to_torch,
    "mha": _mha_to_torch,
}
FROM_TORCH: dict[str, Callable[[Arrays], Arrays]] = {
    "dense": _dense_from_torch,
    "conv2d": _conv2d_from_torch,
    "embedding": _embedding_from_torch,
    "lstm": _lstm_from_torch,
    "bilstm": _bilstm_from_torch,
    "batchnorm": _batchnorm_from_torch,
    "layernorm": _layernorm_from_torch,
    "mha": _mha_from_torch,
}


def split(weights: Arrays) -> dict[str, Arrays]:
    """'<layer>/<weight>' keys grouped by layer: the first path component names the layer, the
    rest the weight, which may itself be a path ('lstm_cell/kernel' inside an LSTM)."""
    layers: dict[str, Arrays] = {}
    for key, value in weights.items():
        layer, _, name = key.partition("/")
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
