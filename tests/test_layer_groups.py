"""Per-layer profiles of the transformer workloads, grouped: every layer name either framework's
profiler reports (torch's child modules, Keras' op scopes) falls in attention, MLP, LayerNorm
or embedding/head; the record carries the grouping and the report's per-layer table sums it."""

from __future__ import annotations

import pytest

from analysis.compute import layers
from analysis.load.table import runs_table
from frameworks import profiling
from models import gpt, imdb_transformer, transformer

from . import test_analysis_fakes as fakes

GPT = {
    "attention": ["h0_attn", "h3_attn"],  # Q, K, V, output projections and the product inside
    "MLP": ["h0_fc", "h0_proj", "h0_gelu", "h3_gelu"],
    "LayerNorm": ["h0_ln_1", "h0_ln_2", "ln_f"],
    "embedding/head": ["wte", "wpe", "lm_head", "tied_head"],  # torch's head, Keras' TiedHead
}
IMDB = {
    "attention": ["att"],
    "MLP": ["ffn_1", "ffn_2"],
    "LayerNorm": ["layernorm1", "layernorm2"],
    "embedding/head": ["token_emb", "pos_emb", "hidden", "predictions"],
}


@pytest.mark.parametrize(("model", "expected"), [(gpt, GPT), (imdb_transformer, IMDB)])
def test_each_transformer_layer_belongs_to_one_of_the_four_groups(model, expected):
    assert set(model.LAYER_GROUPS.values()) == {
        transformer.ATTENTION_GROUP, transformer.MLP, transformer.LAYERNORM,
        transformer.EMBEDDING_HEAD,
    }  # fmt: skip
    for group, names in expected.items():
        for name in names:
            assert model.LAYER_GROUPS[name] == group, name


def test_torch_child_modules_keep_their_names_for_the_groups():
    names = profiling._layers("gpt")
    assert profiling._group_of_torch_child("h0_gelu", "h0_fc", names) == "h0_gelu"
    assert profiling._group_of_torch_child("lm_head", "ln_f", names) == "lm_head"
    assert profiling._group_of_torch_child("h0_drop_1", "h0_attn", names) == profiling.OTHER_LAYERS


@pytest.mark.parametrize(
    ("op", "layer"),
    [
        ("gpt/h0_attn/query/einsum/Einsum", "h0_attn"),
        ("gradient_tape/gpt/h2_attn/attention_output/einsum/Einsum", "h2_attn"),
        ("gpt/h1_gelu/Erf", "h1_gelu"),
        ("gpt/tied_head/MatMul", "tied_head"),
        ("gradient_tape/gpt_1/h0_ln_1/moments/mean", "h0_ln_1"),
    ],
)
def test_keras_op_scopes_map_to_the_grouped_layer_names(op, layer):
    assert profiling._keras_group(op, profiling._layers("gpt"), "adamw", "gpt") == layer
    assert layer in gpt.LAYER_GROUPS


def test_the_record_carries_each_layers_group_and_the_groups_sums():
    ops = {"h0_attn": 2.0, "h0_fc": 1.0, "h0_gelu": 0.5, "ln_f": 0.25, "wte": 0.125,
           "optimizer": 3.0}  # fmt: skip
    found = profiling.layer_groups("gpt", ops)
    assert found["layer_groups"]["h0_gelu"] == "MLP" and "optimizer" not in found["layer_groups"]
    assert found["groups_ms"] == {"LayerNorm": 0.25, "MLP": 1.5, "attention": 2.0,
                                  "embedding/head": 0.125}  # fmt: skip
    assert profiling.layer_groups("mlp", {"fc1": 1.0}) == {}  # no groups for other models


def _profiled(root, backend: str, ops: dict[str, float]) -> None:
    rec = fakes.record(backend, 1, [1.0], model="gpt", run_key=f"{backend}-gpt")
    rec["profile"] = {"ops_ms": ops, "wall_ms": sum(ops.values()), "host_other_ms": 0.0}
    rec["profile"] |= profiling.layer_groups("gpt", ops)
    fakes.write(root, f"gpt_{backend}", rec)


def test_the_per_layer_table_names_each_group_and_sums_it(tmp_path):
    _profiled(tmp_path, "torch", {"h0_attn": 2.0, "h1_attn": 1.0, "h0_fc": 0.5, "loss": 0.25})
    _profiled(tmp_path, "tensorflow", {"h0_attn": 1.0, "h1_attn": 1.0, "h0_fc": 0.25,
                                       "loss": 0.25})  # fmt: skip
    t = layers.table(runs_table([tmp_path]), "tensorflow").set_index("layer")
    assert t.loc["h1_attn", "group"] == "attention" and t.loc["loss", "group"] == ""
    total = t.loc[layers.TOTAL.format("attention")]
    assert (total["reference_ms"], total["other_ms"]) == (2.0, 3.0)
    assert t.loc[layers.TOTAL.format("MLP"), "other_ms"] == 0.5
    # The largest differences are layers, never a group's sum of them.
    top = layers.top_differences(t.reset_index())
    assert top.iloc[0]["layer"] == "h0_attn"
    assert not top["layer"].str.endswith("(all)").any()
