"""Comparing a backend's stage against the reference's: a ParityReport per (model, backend)
pair, and training parity of optimizer variants (what tests/test_parity.py mutates)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frameworks import layer_parity, registry
from frameworks.tolerances import (
    BASE,
    FORWARD_ATOL,
    FORWARD_RTOL,
    MOVING_VARIANCE,
    REFERENCE,
    SCHEDULE_RTOL,
    STEPS,
    TRAIN_RTOL,
    moving_variance_excess,
    outlier_fraction,
    tight_bound,
)
from models.catalog import model_config
from twinbench.parity import distributions
from twinbench.parity.stages import Variants, other_backends, run_stages, run_stages_many


@dataclass
class ParityReport:
    """One (model, backend) pair: `backend` against `reference`."""

    model: str
    params: dict[str, int]
    expected_params: int | None
    forward_max_abs_diff: float
    weight_roundtrip_max_abs_diff: float
    optimizer: dict[str, Any] = field(default_factory=dict)
    training: dict[str, dict[str, Any]] = field(default_factory=dict)
    # Per-layer forward figures against the measured bound (frameworks/layer_parity.py), for
    # models that name PARITY_LAYERS; empty for the others
    forward_layers: dict[str, Any] = field(default_factory=dict)
    # The backend's own random draws: initial weights, dropout, augmentation (distributions.py)
    stochastic: dict[str, Any] = field(default_factory=dict)
    passed: bool = False
    failures: list[str] = field(default_factory=list)
    backend: str = field(kw_only=True)
    reference: str = field(default=REFERENCE, kw_only=True)


def _variant(npz: dict, label: str) -> dict[str, Any]:
    prefix = f"{label}:w:"
    return {
        "losses": npz[f"{label}:losses"],
        "rates": npz[f"{label}:rates"],
        "weights": {k[len(prefix) :]: v for k, v in npz.items() if k.startswith(prefix)},
    }


def compare_training(
    opt: dict[str, Any],
    a: dict[str, Any],
    b: dict[str, Any],
    steps: list[int],
    names: tuple[str, str],
    allowed_outliers: float,
) -> tuple[dict[str, Any], list[str]]:
    """Training parity of one variant: the reference's (a) against another backend's (b) losses,
    final weights and learning-rate schedule; `names` are the two backends. Returns the figures
    and what failed (empty when it agrees)."""
    from frameworks import optimizer_formula

    first, second = names

    wa, wb = a["weights"], b["weights"]
    variances = [k for k in wa if k.endswith(MOVING_VARIANCE)]
    compared = [k for k in wa if k not in variances]
    weight_diff = max(float(np.max(np.abs(wa[k] - wb[k]))) for k in compared)
    loss_rel = float(np.max(np.abs(a["losses"] - b["losses"]) / np.abs(a["losses"])))
    rate_rel = float(np.max(np.abs(a["rates"] - b["rates"]) / np.abs(a["rates"])))
    bound = tight_bound(opt)
    beyond = sum(int(np.sum(np.abs(wa[k] - wb[k]) > bound)) for k in compared)
    count = sum(wa[k].size for k in compared)
    figures: dict[str, Any] = {
        "steps": STEPS,
        f"losses_{first}": a["losses"].tolist(),
        f"losses_{second}": b["losses"].tolist(),
        "loss_max_rel_diff": loss_rel,
        "weight_max_abs_diff": weight_diff,
        "weight_bound": bound,
        "weights_beyond_bound": beyond,
        "weights_compared": count,
        "schedule_steps": list(steps),
        f"lr_{first}": a["rates"].tolist(),
        f"lr_{second}": b["rates"].tolist(),
        "lr_max_rel_diff": rate_rel,
    }
    failures = []
    if not optimizer_formula.same_math(opt, [registry.spec(n).api for n in names]):
        failures.append(
            f"optimizer.formula {optimizer_formula.formula_of(opt)}: the APIs' built-in "
            f"{opt['name']} formulas differ, so training parity cannot hold"
        )
    if beyond > allowed_outliers * count or loss_rel > TRAIN_RTOL:
        failures.append(
            f"training: {beyond:,} of {count:,} weights differ by more than {bound:.3g} "
            f"(up to {weight_diff:.3g}), losses by {loss_rel:.3g} relative (bound {TRAIN_RTOL:g})"
        )
    if rate_rel > SCHEDULE_RTOL:
        worst = int(np.argmax(np.abs(a["rates"] - b["rates"]) / np.abs(a["rates"])))
        failures.append(
            f"learning-rate schedules differ: at step {steps[worst]:,} {first} "
            f"{a['rates'][worst]:.6g}, {second} {b['rates'][worst]:.6g}"
        )
    if variances:
        excess = max(moving_variance_excess(wa[k], wb[k]) for k in variances)
        figures["moving_variance_max_abs_diff"] = max(
            float(np.max(np.abs(wa[k] - wb[k]))) for k in variances
        )
        figures["moving_variance_excess"] = excess
        if excess > 0:
            failures.append(f"training: BatchNorm moving variance off by {excess:.3g}")
    return figures, failures


def _pair_report(
    model_name: str, cfg: dict[str, Any], ref_out: dict, out: dict, backend: str, reference: str
) -> ParityReport:
    opt = cfg["optimizer"]
    report = ParityReport(
        model=model_name,
        params={reference: int(ref_out["params"]), backend: int(out["params"])},
        expected_params=cfg.get("expected_params"),
        forward_max_abs_diff=float(np.max(np.abs(ref_out["probe_out"] - out["probe_out"]))),
        weight_roundtrip_max_abs_diff=float(out["roundtrip_max_abs"]),
        optimizer=opt,
        backend=backend,
        reference=reference,
    )
    f = report.failures
    if report.params[reference] != report.params[backend]:
        f.append(f"parameter counts differ: {report.params}")
    if report.expected_params and report.params[backend] != report.expected_params:
        f.append(f"parameter count {report.params[backend]} != original {report.expected_params}")
    if report.weight_roundtrip_max_abs_diff != 0.0:
        f.append(f"weights changed on the canonical -> {backend} -> canonical round trip")
    if not np.allclose(out["probe_out"], ref_out["probe_out"], FORWARD_RTOL, FORWARD_ATOL):
        f.append(f"forward outputs differ by up to {report.forward_max_abs_diff:.3g}")
    if layer_parity.parity_layers(model_name):
        report.forward_layers = layer_parity.compare(model_name, ref_out, out)
        f.extend(layer_parity.judge(model_name, report.forward_layers))
    figures, failures = compare_training(
        opt,
        _variant(ref_out, BASE),
        _variant(out, BASE),
        out["schedule_steps"].tolist(),
        (reference, backend),
        outlier_fraction(cfg),
    )
    report.training[BASE] = figures
    f.extend(failures)
    report.stochastic, failures = distributions.compare_all(ref_out, out, cfg)
    f.extend(failures)
    report.passed = not f
    return report


def check_all(
    model_name: str, backends: list[str] | None = None, reference: str = REFERENCE
) -> list[ParityReport]:
    """The model on `backends` (default: every registered one but the reference), each against
    the reference: one report per backend, the reference's stage run once for all."""
    return check_many([model_name], backends, reference)[model_name]


def check_many(
    model_names: list[str], backends: list[str] | None = None, reference: str = REFERENCE
) -> dict[str, list[ParityReport]]:
    """check_all for several models at once, one process per backend serving all of them (a
    framework's start-up paid once, not once per model): model -> its reports."""
    return check_many_and_variants(model_names, {}, backends, reference)[0]


def check_many_and_variants(
    model_names: list[str],
    variants: dict[str, Variants],
    backends: list[str] | None = None,
    reference: str = REFERENCE,
) -> tuple[dict[str, list[ParityReport]], dict[str, dict[str, list[str]]]]:
    """check_many, and in the same stage processes the optimizer variants of check_variants
    ({model: {label: {backend: spec}}}, trained after each model's configured optimizer from
    the same initial weights): (model -> its reports, model -> label -> its failures). One set
    of framework start-ups serves both."""
    backends = backends or other_backends(reference)
    cfgs = {name: model_config(name) for name in model_names}
    # The configured optimizer first, as check_many alone would train it; the variants after.
    every = {
        name: {
            BASE: {b: cfg["optimizer"] for b in [reference, *backends]},
            **variants.get(name, {}),
        }
        for name, cfg in cfgs.items()
    }
    clash = [name for name, per_model in variants.items() if BASE in per_model]
    if clash:
        raise ValueError(f"a variant may not be labelled {BASE!r}: {', '.join(clash)}")
    outputs = run_stages_many(every, reference)
    reports = {
        name: [
            _pair_report(name, cfg, outputs[name][reference], outputs[name][b], b, reference)
            for b in backends
        ]
        for name, cfg in cfgs.items()
    }
    failures = {
        name: _variant_failures(name, per_model, outputs[name], reference)
        for name, per_model in variants.items()
    }
    return reports, failures


def check(model_name: str, backend: str, reference: str = REFERENCE) -> ParityReport:
    """One pair: `backend` against the reference."""
    return check_all(model_name, [backend], reference)[0]


def check_variants(
    model_name: str, variants: Variants, reference: str = REFERENCE
) -> dict[str, list[str]]:
    """Training parity of several optimizer variants of one model (one process per backend):
    label -> failures (empty where every backend the variant names agrees with the reference).
    The tolerances are those of the spec the reference ran."""
    outputs = run_stages(model_name, variants, reference)
    return _variant_failures(model_name, variants, outputs, reference)


def _variant_failures(
    model_name: str, variants: Variants, outputs: dict[str, dict], reference: str
) -> dict[str, list[str]]:
    """label -> the training-parity failures of that variant in one model's stage outputs."""
    allowed = outlier_fraction(model_config(model_name))
    result = {}
    for label, specs in variants.items():
        failures = []
        for backend in sorted(set(specs) - {reference}):
            out = outputs[backend]
            failures += compare_training(
                specs[reference],
                _variant(outputs[reference], label),
                _variant(out, label),
                out["schedule_steps"].tolist(),
                (reference, backend),
                allowed,
            )[1]
        result[label] = failures
    return result
