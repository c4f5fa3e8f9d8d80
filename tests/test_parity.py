"""Equivalence of each model on every backend against the reference (docs/equivalence.md): each in
its own process, and proof that the training-parity check fails when one side's optimizer
differs. The (model, backend) pairs come from conf/model/ and frameworks/registry.py."""

from __future__ import annotations

import json

import numpy as np
import pytest

from frameworks import certified as certified_code
from frameworks import layer_parity, registry, tolerances
from models.catalog import model_config
from tests import certificate_fakes
from twinbench.config.spec import group_choices
from twinbench.parity import certificates, compare, stages


# Over 60 s (about 600 s on the Zen 3 since issue 44's per-layer probes and dropout draws; 250 s
# before): every model's parity on every backend, and mlp's optimizer variants (the mutation
# tests below) trained in the same stages: one stage process per backend serves all of it, and
# the non-reference stages run side by side.
@pytest.fixture(scope="module")
def parity_runs(tmp_path_factory):
    """(model -> backend -> its report against the reference, mlp's variant label -> its
    failures, the folder the certificates were written to): every model on every backend and
    every optimizer variant of mlp, in one set of stage processes."""
    found, variants = compare.check_many_and_variants(
        group_choices("model"), {"mlp": mlp_variants()}
    )
    folder = tmp_path_factory.mktemp("parity")  # never into the repository's results/
    reports = {name: {r.backend: r for r in per_model} for name, per_model in found.items()}
    for per_model in found.values():
        for report in per_model:
            certificates.write_certificate(report, folder)
    return reports, variants["mlp"], folder


@pytest.fixture(scope="module")
def certified(parity_runs):
    """model -> (backend -> its report against the reference, the certificates' folder)."""
    reports, _, folder = parity_runs

    def check(model: str) -> tuple[dict[str, compare.ParityReport], object]:
        return reports[model], folder

    return check


@pytest.mark.parametrize("backend", stages.other_backends())
@pytest.mark.parametrize("model", group_choices("model"))
def test_every_backend_runs_the_same_network_as_the_reference(certified, model, backend):
    reports, folder = certified(model)
    report = reports[backend]
    assert (report.reference, report.backend) == (tolerances.REFERENCE, backend)
    assert report.passed, report.failures
    # 1. parameter counts: equal, and equal to the original Keras model where it is fixed
    assert report.params[backend] == report.params[tolerances.REFERENCE]
    if report.expected_params:
        assert report.params[backend] == report.expected_params
    # 2. forward parity on transferred weights, and a lossless canonical round trip
    assert report.forward_max_abs_diff <= tolerances.FORWARD_ATOL * 10
    assert report.weight_roundtrip_max_abs_diff == 0.0
    # 3. training parity with the configured optimizer, epsilon included, and the same learning
    #    rate at every compared step of a full run
    training = report.training[tolerances.BASE]
    assert (
        training["weights_beyond_bound"]
        <= tolerances.outlier_fraction(model_config(model)) * training["weights_compared"]
    )
    assert training["loss_max_rel_diff"] <= tolerances.TRAIN_RTOL
    assert training["lr_max_rel_diff"] <= tolerances.SCHEDULE_RTOL
    assert max(training["schedule_steps"]) >= tolerances.SCHEDULE_STEPS[-1]
    # 4. its own random draws (twinbench/parity/distributions.py): fresh initial weights
    #    against the reference's draw, dropout and augmentation against the config (their
    #    failures are in report.failures; tests/test_stochastic_parity.py mutates each)
    stochastic = report.stochastic
    assert stochastic["init"]["tensors"], "no fresh initial weights were compared"
    kinds = {t["kind"] for t in stochastic["init"]["tensors"].values()}
    assert "random" in kinds and kinds <= {"random", "deterministic", "orthogonal"}
    if model_config(model).get("augment"):
        assert stochastic["augment"]["backend"]["exact_fill_fraction"] == 1.0
        # ... and its validation pass leaves the coordinate probe exactly as it was
        assert stochastic["validation"]["backend"]["unchanged_fraction"] == 1.0
    # 5. the transformers layer by layer, within the measured bound (frameworks/layer_parity.py;
    #    tests/test_layer_parity.py plants mutations), and attention dropout by its effect
    if layer_parity.parity_layers(model):
        layers = report.forward_layers
        assert set(layers["layers"]) == set(layer_parity.compared_layers(model))
        assert max(layers["layers"].values()) <= layer_parity.bound(model)
    attention = stochastic["attention_dropout"]["layers"]
    if model == "gpt":  # four blocks, each attention dropping at the configured 0.2
        assert [layer["rate"] for layer in attention.values()] == [0.2] * 4
    # the certificate carries what it certifies, so it reads "pass" until any of that changes
    assert certificates.status(model, folder, backend)["status"] == "pass"
    assert certificates.status(model, folder)["status"] == "pass"  # the summary of every pair


RMSPROP = {"name": "rmsprop", "formula": "2017", "lr": 1e-3, "rho": 0.9, "eps": 1e-8, "decay": 0}
ADAM = {"name": "adam", "formula": "2017", "lr": 1e-3, "beta_1": 0.9, "beta_2": 0.999, "eps": 1e-8}
ADADELTA = {"name": "adadelta", "formula": "2017", "lr": 1.0, "rho": 0.95, "eps": 1e-8}
DECAYED = {**RMSPROP, "decay": 1e-6}  # cifar10_cnn's decay: invisible in parity's few steps
# label -> (Keras' spec, torch's spec): each mutation changes one hyperparameter on torch's side.
MUTATIONS = {
    "rmsprop eps x10": (RMSPROP, {**RMSPROP, "eps": 1e-7}),
    "rmsprop rho": (RMSPROP, {**RMSPROP, "rho": 0.95}),
    "rmsprop lr": (RMSPROP, {**RMSPROP, "lr": 1.1e-3}),
    "rmsprop decay dropped": (DECAYED, {**DECAYED, "decay": 0.0}),
    "rmsprop decay x2": (DECAYED, {**DECAYED, "decay": 2e-6}),
    "rmsprop Keras 3 formula": ({**RMSPROP, "formula": "builtin"}, RMSPROP),
    "adam eps x10": (ADAM, {**ADAM, "eps": 1e-7}),
    "adam beta_1": (ADAM, {**ADAM, "beta_1": 0.8}),
    "adam beta_2": (ADAM, {**ADAM, "beta_2": 0.99}),
    "adam torch formula": (ADAM, {**ADAM, "formula": "builtin"}),
    "adadelta eps x10": (ADADELTA, {**ADADELTA, "eps": 1e-7}),
    "adadelta rho": (ADADELTA, {**ADADELTA, "rho": 0.9}),
}
UNMUTATED = {"rmsprop": RMSPROP, "rmsprop decayed": DECAYED, "adam": ADAM, "adadelta": ADADELTA}
# The same mutations between Keras runtimes, where the optimizer is one code: label ->
# (the backend mutated, the reference's spec, the mutated spec).
KERAS_RUNTIME_MUTATIONS = {
    "keras_jax rmsprop eps x10": ("keras_jax", RMSPROP, {**RMSPROP, "eps": 1e-7}),
    "keras_torch adam beta_2": ("keras_torch", ADAM, {**ADAM, "beta_2": 0.99}),
}


def mlp_variants() -> dict[str, dict[str, dict]]:
    """Every optimizer variant for mlp: label -> backend -> its optimizer spec."""
    variants = {label: {"tensorflow": k, "torch": t} for label, (k, t) in MUTATIONS.items()}
    keras = [b for b in stages.other_backends() if registry.spec(b).api == "keras"]
    variants.update(
        {
            label: {"tensorflow": s, "torch": s, **dict.fromkeys(keras, s)}
            for label, s in UNMUTATED.items()
        }
    )
    variants.update(
        {
            label: {"tensorflow": k, backend: m}
            for label, (backend, k, m) in KERAS_RUNTIME_MUTATIONS.items()
        }
    )
    return json.loads(json.dumps(variants))


@pytest.fixture(scope="module")
def mutated_mlp(parity_runs) -> dict[str, list[str]]:
    """Every variant trained on mlp (in parity_runs' stages): label -> its failures."""
    return parity_runs[1]


@pytest.mark.parametrize("label", sorted(UNMUTATED))
def test_parity_holds_with_the_same_optimizer_on_both_sides(mutated_mlp, label):
    assert mutated_mlp[label] == []


@pytest.mark.parametrize("label", sorted(MUTATIONS) + sorted(KERAS_RUNTIME_MUTATIONS))
def test_parity_fails_when_one_side_changes_one_hyperparameter(mutated_mlp, label):
    assert mutated_mlp[label], f"{label}: the mutated optimizer passed the parity check"


def test_a_changed_model_file_makes_its_certificate_stale(tmp_path, monkeypatch):
    report = certificate_fakes.report("mlp")
    certificates.write_certificate(report, tmp_path)
    assert certificates.status("mlp", tmp_path)["status"] == "pass"
    real = certificates.fingerprint

    def edited(name, *stack):  # fingerprint(name, stack_pins)
        printed = real(name, *stack)
        printed["files"]["models/mlp.py"] = "0" * 64
        return printed

    monkeypatch.setattr(certificates, "fingerprint", edited)
    stale = certificates.status("mlp", tmp_path)
    assert stale["status"] == "stale"
    assert stale["changed_since"] == ["models/mlp.py"]


def test_other_framework_versions_make_a_failed_certificate_stale_too(tmp_path, monkeypatch):
    certificates.write_certificate(certificate_fakes.report("cnn", passed=False), tmp_path)
    assert certificates.status("cnn", tmp_path)["status"] == "fail"
    monkeypatch.setattr(certified_code, "_installed", lambda package: "0.0-other")
    assert certificates.status("cnn", tmp_path)["status"] == "stale"


def test_no_certificate_reads_not_checked(tmp_path):
    assert certificates.status("mlp", tmp_path)["status"] == "not checked"


def test_schedule_is_compared_up_to_the_last_step_of_a_full_run():
    cfg = {"batch_size": 32, "epochs": 20}
    steps = stages.schedule_steps(cfg, 50_000)
    assert steps[-1] == max(tolerances.SCHEDULE_STEPS) and 1563 * 20 - 1 in steps
    cifar10_cnn = model_config("cifar10_cnn")  # full batches only: 1,562 an epoch
    assert 1562 * 20 - 1 in stages.schedule_steps(cifar10_cnn, 50_000)


def test_tight_bound_is_a_small_fraction_of_the_step_an_adaptive_optimizer_can_take():
    rmsprop = {"name": "rmsprop", "rho": 0.9}
    # lr 1e-2 (charlstm): 1e-3 of the 2 * 5 * lr * sqrt(10) two optimizers can drift apart
    assert tolerances.tight_bound({**rmsprop, "lr": 1e-2}) == pytest.approx(1e-3 * 0.1 * 10**0.5)
    assert tolerances.tight_bound({**rmsprop, "lr": 1e-4}) == tolerances.TRAIN_ATOL  # the floor
    assert tolerances.tight_bound({"name": "adadelta", "lr": 1.0}) == tolerances.TRAIN_ATOL
    assert tolerances.max_step_factor({"name": "adam", "beta_1": 0.9, "beta_2": 0.999}) == (
        pytest.approx(0.1 / 0.001**0.5)
    )


def test_moving_variance_may_exceed_keras_only_by_the_unbiased_factor():
    keras_var = np.array([0.5, 1.0, 2.0])
    unbiased = keras_var * (1 + 0.5 / (tolerances.BATCH - 1))  # half the largest possible excess
    assert tolerances.moving_variance_excess(keras_var, unbiased) == 0.0
    assert tolerances.moving_variance_excess(keras_var, keras_var * 1.1) > 0.05  # wrong momentum
    assert tolerances.moving_variance_excess(keras_var, keras_var * 0.99) > 0.004  # below Keras'


def test_the_report_calls_a_certificate_stale_unless_it_certifies_this_checkout(tmp_path):
    import pandas as pd

    from analysis.compute import certificates as analysis_certificates
    from analysis.load.records import SOURCE

    runs = pd.DataFrame([{"source": SOURCE, "model": "mlp", "parity_status": "pass"}])
    report = certificate_fakes.report("mlp")
    certificates.write_certificate(report, tmp_path)
    path = certificates.certificate_path(
        "mlp", tmp_path
    )  # the model's summary, which analysis reads
    assert analysis_certificates.parity(runs, [tmp_path]).loc[0, "certificate_status"] == "pass"
    cert = json.loads(path.read_text())
    cert["fingerprint"]["versions"]["torch"] = "0.2.0"
    path.write_text(json.dumps(cert))
    row = analysis_certificates.parity(runs, [tmp_path]).loc[0]
    assert row["certificate_status"] == "stale" and "torch" in row["changed_since"]


def test_the_formula_is_2017_by_default_and_an_unknown_one_is_refused_before_a_run(compose):
    from frameworks import optimizer_formula
    from twinbench.config.spec import ConfigError, build_spec

    for model in group_choices("model"):
        assert optimizer_formula.formula_of(model_config(model)["optimizer"]) == "2017"
    assert build_spec(compose("model.optimizer.formula=builtin")).model_cfg["optimizer"]["formula"]
    with pytest.raises(
        ConfigError, match=r"model\.optimizer\.formula must be one of 2017, builtin"
    ):
        build_spec(compose("model.optimizer.formula=keras3"))
