"""Forward parity layer by layer (frameworks/layer_parity.py): planted one-line mutations of
either half of each transformer pass the flat forward bound parity had (FORWARD_RTOL/ATOL on the
probabilities) and fail the per-layer measured bound, which names the first layer past it; the
unmutated halves pass. Attention dropout by its effect on the kernel that runs
(torch_native/stochastic.py): a one-line mutation of SelfAttention.forward that stops the fused
kernel (or the explicit path) dropping at its module's rate fails, where the layer probe of
before passes it; so does a residual dropout module the forward stops calling, which one
training forward shows, and Keras' explicit attention handing its dropout training=False. The
models run in a fresh process (tests/layer_parity_checks.py)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from frameworks import certified, layer_parity
from tests import certificate_fakes
from tests.dropout_input_checks import WRONG_TENSOR
from tests.layer_parity_checks import DROPOUT_MUTATIONS, MUTATIONS
from twinbench.parity import distributions, dropout_inputs
from twinbench.parity.draws import in_forward_arrays
from twinbench.paths import REPO_ROOT


# About 25 s on the Zen 3: one process builds both shipped transformers on both halves.
@pytest.fixture(scope="module")
def checks() -> dict:
    proc = subprocess.run(
        [sys.executable, "-m", "tests.layer_parity_checks"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("model", ["gpt", "imdb_transformer"])
def test_unmutated_halves_pass_layer_by_layer(checks, model):
    figures = checks["unmutated"][model]
    assert figures["failures"] == []
    assert set(figures["layers"]) == set(layer_parity.compared_layers(model))


@pytest.mark.parametrize("label", sorted(MUTATIONS))
def test_a_one_line_mutation_inside_the_flat_bound_fails_layer_by_layer(checks, label):
    figures = checks["mutated"][label]
    # what parity checked before: the mutation stays inside it ...
    assert figures["flat_forward_passes"], f"{label}: not a mutation the old bound missed"
    # ... and the first layer it changes is named, past the measured bound
    assert figures["failures"], f"{label}: passed the per-layer bound"
    assert "forward: layer " in figures["failures"][0]


@pytest.mark.parametrize("kernel", ["fused", "explicit"])
def test_attention_dropout_on_either_kernel_has_the_effect_of_its_declared_rate(checks, kernel):
    found = checks["attention_dropout"][f"{kernel}: unmutated"]
    assert found["failures"] == []
    [layer] = found["figures"]["layers"].values()
    assert layer["rate"] == 0.2 and abs(layer["variance_ratio"] - 1) <= 0.06


@pytest.mark.parametrize("label", sorted(DROPOUT_MUTATIONS))
def test_a_kernel_that_drops_otherwise_than_its_module_declares_fails(checks, label):
    found = checks["attention_dropout"][label]
    # the layer probe of before still finds the module and its rate: it cannot see this ...
    [(rate, zeroed)] = found["layer_probe"].values()
    assert rate == 0.2 and abs(zeroed - 0.2) < 0.01
    # ... the effect on the kernel that runs can
    assert found["failures"] and "declares rate 0.2" in found["failures"][0]


def test_the_bound_is_a_multiple_of_the_rounding_of_the_longest_sum():
    assert layer_parity.bound("gpt") == pytest.approx(4 * 512**0.5)  # conf/equivalence
    assert layer_parity.bound("mlp") is None  # no PARITY_LAYERS: the flat bound alone
    assert layer_parity.scaled_error(np.ones(3), np.ones(3)) == 0.0
    # one rounding of a unit-scale layer
    assert layer_parity.scaled_error(np.ones(3), np.float32(1 + 2**-23) * np.ones(3)) == 2.0


def test_a_certificate_is_judged_again_by_this_checkouts_layer_bound():
    fine = {"layers": dict.fromkeys(layer_parity.compared_layers("gpt"), 20.0), "output": 10.0}
    cert = {**certificate_fakes.report("gpt").__dict__, "forward_layers": fine}
    assert not [p for p in certified.problems(cert) if p.startswith("forward: ")]
    # figures written past the bound, or none at all, fail whatever the certificate says
    past = {**fine, "layers": {**fine["layers"], "h2_gelu": 2760.0}}
    assert "layer h2_gelu" in certified.problems({**cert, "forward_layers": past})[0]
    assert "no per-layer figures" in certified.problems({**cert, "forward_layers": {}})[0]


def test_a_certificates_attention_dropout_figures_are_judged_again_on_both_sides():
    def stochastic(ratio: float, side: str) -> dict:
        layer = {"rate": 0.2, "variance_ratio": ratio, "observed_variance": ratio}
        figures = {"layers": {"0:h0_attn": {**layer, "variance_ratio": 1.01}}}
        figures["reference_layers" if side == "reference" else "layers"] = {"0:h0_attn": layer}
        return {"init": {"tensors": {}}, "dropout": {"layers": []}, "augment": {}} | {
            "attention_dropout": figures
        }

    assert certified.stochastic_problems(stochastic(1.02, "backend")) == []
    for side in ("backend", "reference"):  # a kernel that dropped nothing, on either half
        assert certified.stochastic_problems(stochastic(0.0, side)) == [
            f"attention dropout: {side} layer 0:h0_attn off its declared rate"
        ]


def test_keras_half_attention_dropout_fails_when_its_kernel_stops_dropping(checks):
    found = checks["keras_attention_dropout"]
    assert found["unmutated"]["failures"] == []
    [layer] = found["unmutated"]["figures"]["layers"].values()
    assert layer["rate"] == 0.2 and abs(layer["variance_ratio"] - 1) <= 0.06
    # ExplicitAttention passing training=False: the Dropout layer keeps its rate, drops nothing
    assert found["mutated"]["failures"], "Keras' attention that drops nothing passed"
    assert "declares rate 0.2" in found["mutated"]["failures"][0]


def test_a_dropout_module_the_forward_skips_or_calls_in_eval_mode_fails(checks):
    found = checks["dropout_in_forward"]
    unmutated = found["null"]  # JSON's name for the unmutated forward (label None)
    assert unmutated["failures"] == []
    assert {k: v["calls"] for k, v in unmutated["seen"].items()} == {
        "drop": 1, "h0_drop_1": 1, "h0_drop_2": 1
    }  # fmt: skip
    for layer in unmutated["figures"]["layers"].values():  # by effect: about its rate
        assert layer["rate"] == 0.2 and abs(layer["zeroed_share"] - 0.2) < 0.01
    # both mutations leave drop_1 in place, and the layer probe still finds it dropping at 0.2
    for label in ("skipped", "called in eval mode"):
        rate, zeroed = found[label]["layer_probe_drop_1"]
        assert rate == 0.2 and abs(zeroed - 0.2) < 0.01
    # ... the training forward shows one never runs, the other runs and drops nothing
    assert found["skipped"]["failures"] == [
        "dropout: backend layer h0_drop_1 holds a rate, but a training forward never runs it"
    ]
    [failure] = found["called in eval mode"]["failures"]
    assert failure.startswith("dropout: backend layer h0_drop_1 zeroes 0.0000 of the values")
    assert found["called in eval mode"]["seen"]["h0_drop_1"]["calls"] == 1


def test_a_dropout_whose_output_the_forward_discards_fails(checks):
    """It runs and drops at its rate, so only its effect on the model's output shows it."""
    found = checks["dropout_in_forward"]
    floor = found["null"]["figures"]["output_change_min"]
    for name, layer in found["null"]["seen"].items():  # each site alone moves the output
        assert layer["output_change"] > 10 * floor, name
    discarded = found["output discarded"]
    seen = discarded["seen"]["h0_drop_1"]
    assert seen["calls"] == 1 and abs(seen["zeroed"] / seen["inputs"] - 0.2) < 0.01
    assert seen["output_change"] == 0.0  # what it returns is multiplied by 0
    [failure] = discarded["failures"]
    assert failure.startswith("dropout: backend layer h0_drop_1 drops, but what it returns never")


def test_keras_probe_sees_a_dropout_its_block_calls_with_training_false_or_discards(checks):
    found = checks["keras_dropout_in_forward"]
    assert found["unmutated"]["failures"] == []
    seen = found["unmutated"]["seen"]
    assert len(seen) == 2 and "outer" in seen  # the model's own Dropout and the block's
    floor = found["unmutated"]["figures"]["output_change_min"]
    for layer in found["unmutated"]["figures"]["layers"].values():
        assert layer["calls"] == 1 and abs(layer["zeroed_share"] - 0.2) < 0.05
        assert layer["output_change"] > 10 * floor
    # the block's Dropout called with training=False: it runs once and zeroes nothing
    [failure] = found["training=False"]["failures"]
    assert " zeroes 0.0000 of the values a training forward hands it, not its rate 0.2" in failure
    # ... or called, dropping at its rate, and its output thrown away
    [failure] = found["output discarded"]["failures"]
    assert " drops, but what it returns never reaches the model's output" in failure
    assert found["output discarded"]["seen"]["outer"]["output_change"] > 10 * floor


def test_each_dropout_site_is_handed_what_its_twin_in_the_other_half_is(checks):
    """Unmutated, every torch site finds its Keras twin (same size, rms and mean of its input,
    float32 rounding apart) far inside the bound; gpt's Keras half has a site more than torch
    (its attention layers' own Dropout), which is left unmatched, not failed."""
    found = checks["dropout_inputs"]["unmutated"]
    rtol = found["gpt"]["figures"]["rtol"]
    for name in ("gpt", "imdb_transformer"):
        assert found[name]["failures"] == [], name
        sites = found[name]["figures"]["sites"]
        assert set(sites) == set(found[name]["seen"]["backend"])
        assert all(s["twin"] and s["distance"] < rtol / 100 for s in sites.values()), sites
    gpt = found["gpt"]["seen"]
    assert len(gpt["reference"]) > len(gpt["backend"])


@pytest.mark.parametrize("label", sorted(WRONG_TENSOR))
def test_a_dropout_at_its_rate_on_the_wrong_tensor_fails(checks, label):
    """Each site alone still runs, drops at its rate and moves the output (the checks before
    pass it); the tensor it drops is not the one its twin drops."""
    [(name, found)] = checks["dropout_inputs"][label].items()
    assert found["failures"], f"{label}: passed"
    mutated = {"gpt": "h0_drop_1", "imdb_transformer": "dropout1"}[name]
    assert any(f.startswith(f"dropout: backend layer {mutated} ") for f in found["failures"])
    for side in ("reference", "backend"):  # what parity's site-alone checks judge still passes
        seen = found["seen"][side]
        arrays = in_forward_arrays(seen)
        assert distributions.check_dropout_in_forward(arrays, side)[1] == [], side


def test_a_certificates_dropout_input_figures_are_judged_again(checks):
    """A stored site without a twin, or one whose distance was edited past the configured bound,
    fails on reading: a certificate edited to pass reads invalid."""
    figures = checks["dropout_inputs"]["unmutated"]["gpt"]["figures"]
    base = {"init": {"tensors": {}}, "dropout": {"layers": []}, "augment": {}}
    assert certified.stochastic_problems({**base, "dropout_inputs": figures}) == []
    wrong = checks["dropout_inputs"]["gpt torch: drop_1 on the attention's input"]["gpt"]
    assert certified.stochastic_problems({**base, "dropout_inputs": wrong["figures"]})
    edited = {**figures["sites"], "h0_drop_1": {"twin": "dropout_2", "distance": 0.5}}
    assert certified.stochastic_problems(
        {**base, "dropout_inputs": {**figures, "sites": edited}}
    ) == ["dropout: backend layer h0_drop_1 drops another tensor than the reference"]


def test_a_dropout_site_without_its_output_figure_fails_and_one_without_input_figures_is_left(
    checks,
):
    """A site whose effect on the output was not measured fails (no figure is not a pass); a site
    stored without the `handed_*` figures (draws written before them) is not compared."""
    seen = checks["dropout_inputs"]["unmutated"]["gpt"]["seen"]["backend"]
    site = seen["h0_drop_1"]
    unmeasured = {k: v for k, v in site.items() if k != "output_change"}
    arrays = in_forward_arrays({"h0_drop_1": unmeasured})
    assert distributions.check_dropout_in_forward(arrays, "backend")[1] == [
        "dropout: backend layer h0_drop_1: its effect on the output was not measured"
    ]
    older = {k: v for k, v in site.items() if not k.startswith("handed_")}
    arrays = in_forward_arrays({"h0_drop_1": older})
    figures, failures = dropout_inputs.compare_dropout_inputs({}, arrays)
    assert failures == [] and figures["sites"] == {}
