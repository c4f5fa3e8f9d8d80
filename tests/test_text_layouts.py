"""The text models' layer kinds in frameworks/torch_native/weight_layout.py: exact inverses,
torch's names and shapes, and (in a torch-only process) the same function as a numpy Keras
reference."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from frameworks.torch_native.weight_layout import (
    FROM_TORCH,
    TO_TORCH,
    canonical_to_torch_state,
    torch_state_to_canonical,
)
from models import bilstm, textgen
from twinbench.paths import REPO_ROOT

IN, UNITS, N = 5, 4, 6
rng = np.random.default_rng(0)


def lstm_weights(prefix: str = "") -> dict[str, tuple[int, ...]]:
    return {
        f"{prefix}lstm_cell/kernel": (IN, 4 * UNITS),
        f"{prefix}lstm_cell/recurrent_kernel": (UNITS, 4 * UNITS),
        f"{prefix}lstm_cell/bias": (4 * UNITS,),
    }


def torch_lstm(suffix: str = "") -> dict[str, tuple[int, ...]]:
    """nn.LSTM(IN, UNITS)'s parameter names and shapes."""
    return {
        f"weight_ih_l0{suffix}": (4 * UNITS, IN),
        f"weight_hh_l0{suffix}": (4 * UNITS, UNITS),
        f"bias_ih_l0{suffix}": (4 * UNITS,),
        f"bias_hh_l0{suffix}": (4 * UNITS,),
    }


# kind: (Keras' weights and shapes, torch's parameters and shapes)
KINDS = {
    "embedding": ({"embeddings": (7, 3)}, {"weight": (7, 3)}),
    "lstm": (lstm_weights(), torch_lstm()),
    "bilstm": (
        lstm_weights("forward_lstm/") | lstm_weights("backward_lstm/"),
        torch_lstm() | torch_lstm("_reverse"),
    ),
    "batchnorm": (
        {k: (N,) for k in ("gamma", "beta", "moving_mean", "moving_variance")},
        {k: (N,) for k in ("weight", "bias", "running_mean", "running_var")},
    ),
    "layernorm": ({"gamma": (N,), "beta": (N,)}, {"weight": (N,), "bias": (N,)}),
    # Keras' per-head kernels (width 5, 2 heads of 3) against torch's concatenated projections
    "mha": (
        {
            **{f"{p}/kernel": (5, 2, 3) for p in ("query", "key", "value")},
            **{f"{p}/bias": (2, 3) for p in ("query", "key", "value")},
            "attention_output/kernel": (2, 3, 5),
            "attention_output/bias": (5,),
        },
        {
            **{f"{p}.weight": (6, 5) for p in ("query", "key", "value")},
            **{f"{p}.bias": (6,) for p in ("query", "key", "value")},
            "attention_output.weight": (5, 6),
            "attention_output.bias": (5,),
            "heads": (),
        },
    ),
}


def random(shapes: dict[str, tuple[int, ...]]) -> dict[str, np.ndarray]:
    return {k: rng.normal(size=s).astype(np.float32) for k, s in shapes.items()}


@pytest.mark.parametrize("kind", sorted(KINDS))
def test_to_torch_gives_torchs_names_and_shapes_and_from_torch_undoes_it(kind):
    keras_shapes, torch_shapes = KINDS[kind]
    canonical = random(keras_shapes)
    as_torch = TO_TORCH[kind](canonical)
    assert {k: v.shape for k, v in as_torch.items()} == torch_shapes
    back = FROM_TORCH[kind](as_torch)
    assert back.keys() == canonical.keys()
    for k, v in canonical.items():
        assert np.array_equal(back[k], v), k  # bit for bit


@pytest.mark.parametrize("kind", ["lstm", "bilstm"])
def test_lstm_bias_goes_whole_into_bias_ih_and_torchs_two_biases_come_back_summed(kind):
    keras_shapes, torch_shapes = KINDS[kind]
    as_torch = TO_TORCH[kind](random(keras_shapes))
    for name in torch_shapes:
        if name.startswith("bias_hh"):
            assert not as_torch[name].any()
    trained = random(torch_shapes)  # a torch LSTM whose two biases both moved
    again = TO_TORCH[kind](FROM_TORCH[kind](trained))
    for suffix in ("", "_reverse") if kind == "bilstm" else ("",):
        total = trained[f"bias_ih_l0{suffix}"] + trained[f"bias_hh_l0{suffix}"]
        assert np.array_equal(again[f"bias_ih_l0{suffix}"] + again[f"bias_hh_l0{suffix}"], total)
        for w in ("weight_ih_l0", "weight_hh_l0"):
            assert np.array_equal(again[w + suffix], trained[w + suffix])


def test_lstm_kernels_are_transposed_gate_blocks_in_the_same_order():
    canonical = random(lstm_weights())
    weight_ih = TO_TORCH["lstm"](canonical)["weight_ih_l0"]
    kernel = canonical["lstm_cell/kernel"]
    for gate in range(4):  # input, forget, cell, output in both frameworks
        rows = slice(gate * UNITS, (gate + 1) * UNITS)
        assert np.array_equal(weight_ih[rows], kernel[:, rows].T)


@pytest.mark.parametrize("module", [bilstm, textgen])
def test_model_weights_round_trip_through_torch_state_names(module):
    """Keras 3's variable paths ('bidirectional/forward_lstm/lstm_cell/kernel') map to the torch
    module's state names ('bidirectional.weight_ih_l0') and back, unchanged."""
    shapes = {
        "embedding": {"embeddings": (9, IN)},
        "bilstm": KINDS["bilstm"][0],
        "lstm": KINDS["lstm"][0],
        "dense": {"kernel": (UNITS, 3), "bias": (3,)},
        "batchnorm": KINDS["batchnorm"][0],
    }
    canonical = {
        f"{layer}/{name}": value
        for layer, kind in module.LAYERS.items()
        for name, value in random(shapes[kind]).items()
    }
    state = canonical_to_torch_state(module.LAYERS, canonical)
    if module is bilstm:
        assert "bidirectional.weight_hh_l0_reverse" in state
        assert "bidirectional.bias_ih_l0" in state and "embedding.weight" in state
    else:
        assert {"bn_1.running_var", "lstm.bias_hh_l0", "main.weight"} <= state.keys()
    back = torch_state_to_canonical(module.LAYERS, state)
    assert back.keys() == canonical.keys()
    assert all(np.array_equal(back[k], v) for k, v in canonical.items())


def test_torch_modules_with_converted_weights_compute_what_keras_computes():
    """In a torch-only process: nn.LSTM vs a numpy LSTM in Keras' gate order, the bidirectional
    final states, textgen's heads with BatchNorm statistics, torch's unbiased running variance,
    Keras' initializers and parameter counts (tests/torch_text_checks.py)."""
    proc = subprocess.run(
        [sys.executable, "-m", "tests.torch_text_checks"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr[-3000:]
    for check in ("lstm_step_order", "bidirectional_final_states", "heads_and_batchnorm"):
        assert check in proc.stdout
