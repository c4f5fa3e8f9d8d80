"""bfloat16 parity (twinbench/parity/precision_parity.py, docs/equivalence.md): mlp and cnn
agree on every backend in mixed bfloat16, and each check fails when one side is mutated: one
layer kept in float32, or the loss taken in bfloat16, on each backend in turn."""

from __future__ import annotations

import json

import numpy as np
import pytest

from frameworks import tolerances
from tests import certificate_fakes
from twinbench.parity import certificates, precision_parity, stages
from twinbench.parity.precision_parity import UNMUTATED

REFERENCE = tolerances.REFERENCE
FLOAT32_LAYER = {"float32_layer": "fc2"}  # mlp's second hidden layer: [64, 512]
BF16_LOSS = {"bfloat16_loss": True}
# What each mutation's failure must say.
SAYS = {
    "fc2 in float32": "[64, 512] computed in float32",
    "loss in bfloat16": "the loss was computed in bfloat16, not float32",
}
MUTATION = {"fc2 in float32": FLOAT32_LAYER, "loss in bfloat16": BF16_LOSS}
DEPTH = {"mlp": 3, "cnn": 4}  # product layers: 3 Dense; 2 Conv2D and 2 Dense
# A stage process costs ~25 s to start on 2 loaded cores (the framework's import, the data), a
# variant about a second: the reference and native torch run by default (both tracers of their
# kind: a TorchDispatchMode, a TensorFlow graph), Keras on JAX and on torch as `slow`.
GROUPS = {"default": ("torch",), "keras_runtimes": ("keras_jax", "keras_torch")}
GROUP_OF = {b: group for group, backends in GROUPS.items() for b in backends}


def _variants(group: str) -> dict[str, dict[str, dict[str, dict]]]:
    """Both models unmutated on the group's backends; on mlp, each mutation on each of them
    (and, in the default group, on the reference, compared with native torch unmutated)."""
    backends = GROUPS[group]
    every = {b: {} for b in (REFERENCE, *backends)}
    mlp: dict[str, dict[str, dict]] = {UNMUTATED: every}
    mutated = (REFERENCE, *backends) if group == "default" else backends
    for backend in mutated:
        for what, mutation in MUTATION.items():
            other = backends[0] if backend == REFERENCE else backend
            mlp[f"{backend} {what}"] = {REFERENCE: {}, other: {}, backend: mutation}
    return {"mlp": mlp, "cnn": {UNMUTATED: every}}


def _check(group: str) -> dict[str, dict[str, list[precision_parity.PrecisionReport]]]:
    """model -> label -> the reports of every backend the label names against the reference:
    one stage process per backend for both models and every mutation."""
    variants = _variants(group)
    outputs = stages.run_stages_many(
        json.loads(json.dumps(variants)), REFERENCE, precision=precision_parity.PRECISION
    )
    return {
        model: {
            label: [
                precision_parity.compare_pair(
                    model, REFERENCE, b, outputs[model][REFERENCE], outputs[model][b], label
                )
                for b in sorted(set(specs) - {REFERENCE})
            ]
            for label, specs in per_model.items()
        }
        for model, per_model in variants.items()
    }


@pytest.fixture(scope="module")
def bf16_default():
    return _check("default")


@pytest.fixture(scope="module")
def bf16_keras_runtimes():
    return _check("keras_runtimes")


def _marked(group: str, *values):
    return pytest.param(*values, marks=[pytest.mark.slow] if group != "default" else [])


def test_the_groups_cover_every_backend():
    assert set(GROUP_OF) == set(stages.other_backends())


# The first case of a group is over 60 s on the Zen 3 (cnn-keras_jax about 72 s): it builds the
# group's bfloat16 parity stages, every model in one process per backend, for the cases after it.
@pytest.mark.parametrize(
    ("model", "backend"),
    [_marked(GROUP_OF[b], m, b) for m in sorted(DEPTH) for b in sorted(GROUP_OF)],
)
def test_every_backend_computes_the_same_bfloat16_math(request, model, backend):
    reports = request.getfixturevalue(f"bf16_{GROUP_OF[backend]}")[model][UNMUTATED]
    (report,) = [r for r in reports if r.backend == backend]
    assert report.passed, report.failures
    assert report.depth == DEPTH[model]
    for name in (REFERENCE, backend):
        ops = report.product_ops[name]
        assert len(ops) == DEPTH[model] and not any("float32" in op for op in ops), ops
        assert report.loss_ops[name] and report.loss_dtype[name] == "float32"
        assert report.variable_dtypes[name] == ["float32"]
    for key, figures in report.forward.items():
        assert figures["worst_ratio"] <= 1.0, (key, figures)
    # bf16 really ran: its log-probabilities are off the float32 ones by more than float32
    # parity's relative forward tolerance
    own = report.forward[f"{backend} vs float32"]
    assert own["max_abs_log_prob_diff"] > tolerances.FORWARD_RTOL


@pytest.mark.parametrize(
    ("backend", "what"),
    [
        _marked(GROUP_OF.get(b, "default"), b, what)
        for b in (REFERENCE, *sorted(GROUP_OF))
        for what in sorted(MUTATION)
    ],
)
def test_bfloat16_parity_fails_when_one_side_is_mutated(request, backend, what):
    group = GROUP_OF.get(backend, "default")
    label = f"{backend} {what}"
    reports = request.getfixturevalue(f"bf16_{group}")["mlp"][label]
    failures = [f for report in reports for f in report.failures]
    assert failures, f"{label}: the mutated side passed bfloat16 parity"
    named = [f for f in failures if f.startswith(f"{backend}: ") and SAYS[what] in f]
    # one line, naming the op: the float32 layer alone, not the layers around it
    assert len(named) == 1, failures


def _trace(*dtypes: str, loss: str = "float32") -> dict:
    ops = [
        {"kind": "matmul", "op": "mm", "dtypes": [d, d], "shape": [64, 8 * (i + 1)]}
        for i, d in enumerate(dtypes)
    ]
    ops.append({"kind": "log", "op": "log", "dtypes": [loss], "shape": [64, 10]})
    return {"ops": ops, "loss_dtype": "float32", "variable_dtypes": ["float32"]}


def test_the_dtype_checks_name_each_op_and_the_loss():
    assert precision_parity.dtype_failures("a", _trace("bfloat16", "bfloat16")) == []
    found = precision_parity.dtype_failures("a", _trace("bfloat16", "float32", loss="bfloat16"))
    assert found == [
        "a: matmul mm -> [64, 16] computed in float32, float32, not bfloat16",
        "a: the loss was computed in bfloat16, not float32 (log)",
    ]
    assert precision_parity.dtype_failures("a", _trace()) == [
        "a: no matrix product was traced (the tracer saw nothing)"
    ]
    one, two = _trace("bfloat16", "bfloat16"), _trace("bfloat16")
    assert precision_parity.op_multiset_failures(("a", "b"), (one, two)) == [
        "product ops only a ran: matmul [64, 16] x1"
    ]


def test_the_forward_bound_fails_a_difference_beyond_it():
    rng = np.random.default_rng(0)
    logits = rng.normal(size=(64, 10))
    probs = np.exp(logits) / np.exp(logits).sum(-1, keepdims=True)
    s = precision_parity.scale(probs)
    bound = tolerances.bf16_bound(3, s, halves=True)
    # within: half the bound on one class's log-probability; beyond: twice it
    for factor, passes in ((0.5, True), (2.0, False)):
        moved = probs.copy()
        moved[:, 0] *= np.exp(factor * bound)
        figures = precision_parity.forward_figures(probs, moved, 3, s, halves=True)
        assert (figures["worst_ratio"] <= 1.0) is passes, figures
    # the halves' bound is tighter than the bound against float32 at any logit scale
    for scale in (0.1, 1.0, 10.0):
        halves = tolerances.bf16_bound(3, np.array([scale]), halves=True)
        reference = tolerances.bf16_bound(3, np.array([scale]), halves=False)
        assert halves < reference


def test_a_bfloat16_block_annotates_the_certificate_without_making_it_stale(tmp_path):
    certificates.write_certificate(certificate_fakes.report("mlp"), tmp_path)
    report = precision_parity.PrecisionReport(model="mlp", backend="torch", passed=True)
    assert certificates.record_precision(report, tmp_path) is not None
    assert certificates.status("mlp", tmp_path, "torch")["status"] == "pass"  # not stale
    assert certificates.precision_status("mlp", tmp_path, "torch") == {"bfloat16": "pass"}
    # a float32 re-certification keeps the block
    certificates.write_certificate(certificate_fakes.report("mlp"), tmp_path)
    assert certificates.precision_status("mlp", tmp_path, "torch") == {"bfloat16": "pass"}
    # no certificate to annotate: nothing written
    assert certificates.record_precision(report, tmp_path / "none") is None


def test_an_unknown_precision_is_refused_in_one_line_before_any_stage(capsys):
    from twinbench.parity import cli

    with pytest.raises(SystemExit) as exited:
        # no --quiet: it would leave the parity logger silenced for every later test
        cli.main(["mlp", "--precision", "float16"])
    assert exited.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err == "twinbench: error: unknown --precision 'float16'; choose float32 or bfloat16"
