"""The transformer workloads (gpt, imdb_transformer): the Keras and torch halves are one network
(weights transferred through the per-head attention layout, same outputs, same training under
AdamW with matrix-only decay, global-norm clipping and warm-up + cosine), and parity's own
comparison fails when torch's half changes any one of those. The Keras-against-torch figures come
from one fresh process (tests/transformer_checks.py, small models, a few seconds of compute)."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

from frameworks import optimizer_formula
from frameworks.torch_native.weight_layout import FROM_TORCH, TO_TORCH
from models import flops, gpt
from twinbench.paths import REPO_ROOT


@pytest.fixture(scope="module")
def checks() -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "tests.transformer_checks"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    "pair",
    ["gpt", "imdb_transformer", "gpt explicit attention", "imdb_transformer explicit attention"],
)
def test_keras_and_torch_halves_agree_forward_and_in_training(checks, pair):
    model = pair.split()[0]
    figures = checks["pairs"][pair]
    assert figures["params"] == checks["keras_params"][model]  # the tied head counted once
    assert figures["forward_passes"], figures
    assert figures["training_failures"] == []


MUTATIONS = [
    "tanh GELU",
    "untied head",
    "LayerNorm eps 1e-3",
    "imdb LayerNorm eps 1e-3",
    "decay on LayerNorm and biases",
    "decay on embeddings",
    "clipping off",
    "warm-up off",
    "Adam epsilon after bias correction",
]


@pytest.mark.parametrize("label", MUTATIONS)
def test_parity_fails_when_torchs_half_changes_one_thing(checks, label):
    figures = checks["pairs"][label]
    assert figures["training_failures"] or not figures["forward_passes"], figures


def test_the_clipping_mutation_is_a_real_one_the_norm_binds(checks):
    from tests.transformer_checks import ADAMW

    assert checks["gradient_norm"] > ADAMW["clip_global_norm"]


def test_untied_head_adds_the_head_matrix_to_the_count(checks):
    from tests.transformer_checks import GPT

    extra = checks["pairs"]["untied head"]["params"] - checks["keras_params"]["gpt"]
    assert extra == GPT["width"] * GPT["chars"]


def test_mha_layout_puts_each_head_in_its_own_rows_of_torchs_projection():
    rng = np.random.default_rng(0)
    width, heads, hd = 6, 2, 4
    canonical = {
        **{f"{p}/kernel": rng.normal(size=(width, heads, hd)) for p in ("query", "key", "value")},
        **{f"{p}/bias": rng.normal(size=(heads, hd)) for p in ("query", "key", "value")},
        "attention_output/kernel": rng.normal(size=(heads, hd, width)),
        "attention_output/bias": rng.normal(size=(width,)),
    }
    state = TO_TORCH["mha"](canonical)
    for h in range(heads):
        rows = slice(h * hd, (h + 1) * hd)
        assert np.array_equal(state["query.weight"][rows], canonical["query/kernel"][:, h].T)
        assert np.array_equal(state["value.bias"][rows], canonical["value/bias"][h])
        assert np.array_equal(
            state["attention_output.weight"][:, rows], canonical["attention_output/kernel"][h].T
        )
    back = FROM_TORCH["mha"](state)
    assert all(np.array_equal(back[k], v) for k, v in canonical.items())


SPEC = {"lr": 1e-3, "warmup_steps": 100, "cosine_steps": 4900, "min_lr": 1e-4}


def test_learning_rate_warms_up_linearly_then_follows_half_a_cosine_to_min_lr():
    rate = lambda t: optimizer_formula.learning_rate(SPEC, t)  # noqa: E731
    assert rate(0) == pytest.approx(1e-5) and rate(49) == pytest.approx(5e-4)
    assert rate(99) == pytest.approx(1e-3) and rate(100) == pytest.approx(1e-3)
    assert rate(100 + 2450) == pytest.approx(5.5e-4)  # half way down the cosine
    assert rate(5000) == pytest.approx(1e-4) and rate(10**6) == pytest.approx(1e-4)
    assert optimizer_formula.learning_rate({"lr": 1e-3}, 7) == 1e-3  # no schedule: constant


def test_decay_falls_on_kernels_only_unless_asked_for_embeddings_or_everything():
    spec = {"weight_decay": 0.1, "weight_decay_on": "matrices"}
    assert optimizer_formula.decays(spec, "kernel")
    assert not any(
        optimizer_formula.decays(spec, n) for n in ("bias", "gamma", "beta", "embeddings")
    )
    assert optimizer_formula.decays(
        {**spec, "weight_decay_on": "matrices_and_embeddings"}, "embeddings"
    )
    assert optimizer_formula.decays({**spec, "weight_decay_on": "all"}, "gamma")
    assert not optimizer_formula.decays({**spec, "weight_decay": 0.0}, "kernel")


def test_attention_flops_count_both_products_over_the_full_score_matrix():
    scores, values = flops.attention_layer("a", timesteps=5, heads=2, head_dim=3)
    assert scores.forward == values.forward == 2 * 2 * 5 * 5 * 3
    assert scores.train == values.train == 3 * scores.forward  # both operands' gradients


def test_gpt_layer_names_cover_the_configured_depth():
    from models.catalog import model_config

    layers = model_config("gpt")["arch"]["layers"]
    assert sum(kind == "mha" for kind in gpt.LAYERS.values()) == layers
    assert math.isclose(len(gpt.LAYERS), 2 + 5 * layers + 1)
