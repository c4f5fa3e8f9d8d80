"""What a backend draws with its own random generator matches the reference and the config
(twinbench/parity/distributions.py, docs/equivalence.md "Stochastic checks"): initial weights,
dropout in training mode, augmentation, and validation left unaugmented. Each check is shown to
fail under a one-line mutation of the torch side, and to pass unmutated.

Cheap by design: the reference's draws come from one draws-only stage per model (its own
process, no training), and the torch side draws in this process, mutated or not. That every
backend passes unmutated on every model is asserted where all of them are certified anyway
(tests/test_parity.py reads the certificate's stochastic figures).
"""

from __future__ import annotations

import numpy as np
import pytest

from frameworks import get_backend, tolerances
from models.catalog import model_config
from twinbench.parity import distributions, draws, stages

MODELS = ("mlp", "cifar10_cnn")  # dense + dropout; conv + dropout + augmentation
SIDE = "torch"  # the mutated side: in this process


@pytest.fixture(scope="module")
def reference_draws() -> dict[str, dict[str, np.ndarray]]:
    found = stages.run_stages_many({m: {} for m in MODELS}, tolerances.REFERENCE, draws_only=True)
    return {model: found[model][tolerances.REFERENCE] for model in MODELS}


def _judge(reference_draws, model: str, arch: dict | None = None, augment: dict | None = None):
    """The torch side's draws under a config changed on that side only, judged against the
    reference's draws and the unchanged config: the failures."""
    return _compare(reference_draws, model, arch, augment)[1]


def _compare(reference_draws, model: str, arch: dict | None = None, augment: dict | None = None):
    cfg = model_config(model)
    mine = {**cfg, "arch": {**cfg["arch"], **(arch or {})}}
    if augment is not None:
        mine["augment"] = {**cfg["augment"], **augment}
    found = draws.draw(get_backend(SIDE), model, mine, reference=False)
    return distributions.compare_all(reference_draws[model], found, cfg)


@pytest.mark.parametrize("model", MODELS)
def test_unmutated_draws_pass(reference_draws, model):
    assert _judge(reference_draws, model) == []


def test_a_changed_dropout_rate_fails(reference_draws):
    failures = _judge(reference_draws, "mlp", arch={"dropout": 0.25})
    assert any("dropout: backend layer" in f and "configured rate 0.2" in f for f in failures)


def test_the_frameworks_default_initialiser_fails(reference_draws, monkeypatch):
    import models.torch_init

    monkeypatch.setattr(models.torch_init, "keras_init_", lambda module: module)  # the mutation
    failures = _judge(reference_draws, "mlp")
    assert any("fc1/kernel not from the reference's distribution" in f for f in failures)
    assert any("fc1/bias should equal" in f for f in failures)


def test_no_flip_fails(reference_draws):
    failures = _judge(reference_draws, "cifar10_cnn", augment={"horizontal_flip": False})
    assert failures == ["augment: backend: flip rate off the config (p 0 < 0.00033)"]


def test_another_shift_range_fails(reference_draws):
    failures = _judge(reference_draws, "cifar10_cnn", augment={"width_shift": 0.2})
    assert len(failures) == 1 and "backend: width shifts off the config" in failures[0]


def test_augmented_validation_fails(reference_draws, monkeypatch):
    """The torch loop's validation pass augmenting its batches (the mutation, one line in
    torch_native/evaluate.py's caller) shows in the validation probe; the training-time
    augmentation checks alone would not see it."""
    from frameworks.torch_native import augment, evaluate

    flip_shift = augment.make_augment(model_config("cifar10_cnn")["augment"], 0, "cpu")
    real = evaluate.evaluate
    monkeypatch.setattr(evaluate, "evaluate", lambda m, o, x, *a: real(m, o, flip_shift(x), *a))
    figures, failures = _compare(reference_draws, "cifar10_cnn")
    assert len(failures) == 1 and failures[0].startswith("validation: backend changed 9")
    assert figures["validation"]["reference"]["unchanged_fraction"] == 1.0


def test_unaugmented_validation_passes_on_each_side(reference_draws):
    """Unmutated, the reference's validation pass (its own process) and torch's (this one)
    hand the network the probe unchanged."""
    figures, failures = _compare(reference_draws, "cifar10_cnn")
    assert failures == []
    for side in ("reference", "backend"):
        assert figures["validation"][side]["unchanged_fraction"] == 1.0
        assert figures["validation"][side]["max_abs_diff"] == 0.0


def test_a_constant_fill_is_told_from_edge_fill():
    """The fill check on a probe shifted by hand: edge fill passes, zeros in the border fail."""
    spec = model_config("cifar10_cnn")["augment"]
    probe = draws.coordinate_probe(4, 32, 32, 3)
    edge = probe[:, np.clip(np.arange(32) - 2, 0, 31)]  # every image 2 rows down, edge fill
    decoded = distributions.decode_augment(edge)
    assert decoded["exact"].all() and (decoded["dy"] == 2).all() and (decoded["dx"] == 0).all()
    constant = edge.copy()
    constant[:, :2] = 0  # the mutation: the vacated rows filled with zeros
    assert not distributions.decode_augment(constant)["exact"].any()
    figures, failures = distributions.check_augment(constant, spec, "backend")
    assert figures["exact_fill_fraction"] == 0.0
    assert any("not a whole-pixel shift with 'nearest' fill" in f for f in failures)


def test_a_certificate_is_judged_again_by_its_stochastic_figures(reference_draws):
    """frameworks/certified.py re-reads the figures: a certificate edited to pass, or written
    by code that let a low p-value through, is not trusted."""
    from frameworks.certified import stochastic_problems

    figures, failures = _compare(reference_draws, "cifar10_cnn")
    assert failures == [] and stochastic_problems(figures) == []
    figures["init"]["tensors"]["conv1/kernel"]["ks_p"] = 1e-12  # as if a rate test slipped
    figures["dropout"]["layers"][-1]["scale_error"] = 0.5
    figures["augment"]["backend"]["flip_p"] = 0.0
    figures["validation"]["reference"]["max_abs_diff"] = 3.0  # as if validation augmented
    assert stochastic_problems(figures) == [
        "initial weights: conv1/kernel off the reference's (random)",
        f"dropout: backend layer {figures['dropout']['layers'][-1]['layer']} off its rate",
        "augmentation: backend off the config",
        "validation: reference augments (or was not checked)",
    ]
    del figures["validation"]  # a certificate cut short of the check is not trusted either
    assert stochastic_problems(figures)[-2:] == [
        "validation: reference augments (or was not checked)",
        "validation: backend augments (or was not checked)",
    ]


def test_a_certificate_lists_the_stochastic_checks_fingerprinted():
    from frameworks.certified import fingerprint

    files = fingerprint("mlp")["files"]
    for path in (
        "twinbench/parity/distributions.py",
        "conf/equivalence/default.yaml",
        "frameworks/torch_native/evaluate.py",  # the validation pass the probe goes through
        "frameworks/keras/common.py",  # Keras' validation(), what fit validates on
        "frameworks/keras/stochastic.py",  # the probe that sends x through it
    ):
        assert path in files
