"""Equivalence on every backend (docs/equivalence.md): a reference backend against each other
registered one (frameworks/registry.py), each backend in its own process.

    python -m twinbench.parity mlp cnn ...     # or --all; --reference NAME, --backends A,B, --quiet
    # writes results/parity/<model>.<backend>.json per pair and <model>.json, their summary

The reference is REFERENCE, Keras on TensorFlow: its weights are the canonical layout as they
are (no conversion can hide an error there), and it is the Keras the 2017 scripts ran.
1. The reference builds the model (seeded) and exports canonical weights; every other backend
   imports them (a torch model through frameworks/torch_native/weight_layout.py, a Keras one as
   they are).
2. Forward parity: both predict the same probe batch in inference mode (float32).
3. Training parity: from the same weights, dropout off, both take the same STEPS optimizer steps
   on the same batches with the configured hyperparameters (epsilon included) and the configured
   update formula; losses and final weights must agree tightly (tight_bound: a small fraction of
   the distance the optimizer could move a weight in STEPS steps, never that distance itself;
   at most OUTLIER_FRACTION of the weights, those rounding gave a gradient of the other sign,
   may exceed it).
   This holds only where both frameworks run one formula (`optimizer.formula: "2017"`, the
   default); with "builtin", where Keras 3's RMSprop or torch's Adam differ, the check fails and
   says so. tests/test_parity.py mutates each hyperparameter on one side to show it can fail.
4. Learning-rate schedules: both optimizers' learning rates are read at steps spread over a full
   run (up to SCHEDULE_STEPS), so a decay too small to show in STEPS steps is still compared.
   BatchNorm moving variances are checked against the range torch's unbiased update allows.
A certificate records a fingerprint of what it certifies (the model's code and config, the
adapters' optimizer code, the framework versions); a run whose fingerprint differs reads "stale".
The orchestration here is numpy only; frameworks load in the stage subprocesses.
"""

from __future__ import annotations

import json
import logging
import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from frameworks import registry
from frameworks.certified import differences, fingerprint
from models.catalog import model_config
from twinbench.config.spec import group_choices
from twinbench.machine import environment
from twinbench.paths import REPO_ROOT, WORK_ROOT
from twinbench.result import results
from twinbench.ui import progress

log = logging.getLogger("twinbench.parity")

STEPS = 5
BATCH = 32
PROBE = 64
CERT_DIR = WORK_ROOT / "results" / "parity"
BASE = "configured"  # the variant every check runs: the yaml's optimizer, unchanged

# float32 tolerances. Forward: both compute the same sums in different orders (oneDNN vs MKL).
FORWARD_RTOL, FORWARD_ATOL = 1e-4, 1e-5
# Training with one formula: rounding differences grow a little with each step, and adaptive
# optimizers (update ~ g / sqrt(v)) amplify them where gradients are small, in proportion to
# the step: weights must agree to TRAIN_ATOL or to DRIFT_FRACTION of the distance the optimizer
# could move them apart in STEPS steps (see drift()), whichever is larger; losses to TRAIN_RTOL.
TRAIN_RTOL, TRAIN_ATOL, DRIFT_FRACTION = 1e-3, 1e-5, 1e-3
# A weight whose true gradient is ~0 gets a gradient of either sign from rounding alone, and an
# adaptive optimizer turns either into a full step (lr / sqrt(1 - rho)): a handful of such weights
# may exceed the bound (charlstm: 6 of 102,585 one-hot input weights). More than this fraction
# is a real difference: one hyperparameter changed on one side moves most weights past it.
OUTLIER_FRACTION = 1e-4
# Learning rates read from both optimizers at these steps (and at the last step of a full run).
SCHEDULE_STEPS = (0, 1, 10, 100, 1_000, 10_000, 100_000, 1_000_000)
SCHEDULE_RTOL = 1e-6
# BatchNorm moving variances are compared apart: torch updates them with the unbiased batch
# variance (n / (n - 1) times Keras' biased one), so torch's ends up larger by at most
# 1 / (BATCH - 1) of Keras' (the normalisation itself uses the biased variance in both).
MOVING_VARIANCE = "/moving_variance"
REFERENCE = registry.REFERENCE  # see the module's docstring; --reference overrides it


def without_dropout(cfg: dict[str, Any]) -> dict[str, Any]:
    """Dropout off: every arch key naming a dropout rate is set to 0."""
    arch = {k: (0.0 if "dropout" in k else v) for k, v in cfg["arch"].items()}
    return {**cfg, "arch": arch}


def drift(opt: dict[str, Any]) -> float:
    """Largest distance two implementations of the optimizer can move a weight apart in STEPS
    steps: 2 * STEPS * lr * max_step_factor."""
    return 2 * STEPS * opt["lr"] * max_step_factor(opt)


def tight_bound(opt: dict[str, Any]) -> float:
    """Weight tolerance where both frameworks compute the same update formula."""
    d = drift(opt)
    return max(TRAIN_ATOL, DRIFT_FRACTION * d) if np.isfinite(d) else TRAIN_ATOL


def moving_variance_excess(reference_var: np.ndarray, other_var: np.ndarray) -> float:
    """How far the other backend's moving variance lies outside [the reference's, the
    reference's * (1 + 1/(BATCH-1))], the interval an unbiased update (torch's BatchNorm) can
    reach from Keras' biased one (0 inside it, the excess beyond it otherwise)."""
    low, high = reference_var - TRAIN_ATOL, reference_var * (1 + 1 / (BATCH - 1)) + TRAIN_ATOL
    return max(0.0, float(np.max(np.maximum(low - other_var, other_var - high))))


def max_step_factor(opt: dict[str, Any]) -> float:
    """Largest |update| / lr a single step can make (Kingma & Ba 2015, §2.1, and its RMSprop
    analogue): bounds how far two implementations can drift apart per step."""
    if opt["name"] == "rmsprop":
        return 1.0 / np.sqrt(1.0 - opt["rho"])
    if opt["name"] == "adam":
        return max(1.0, (1.0 - opt["beta_1"]) / np.sqrt(1.0 - opt["beta_2"]))
    return float("inf")


# ---------------------------------------------------------------- stages (one framework each)


def _probe_and_batches(cfg: dict[str, Any], seed: int, workdir: Path):
    """The probe and training batches, the training set's size, and the config with the data's
    sizes filled in.

    The first stage generates the data and leaves the few rows parity needs (and the sizes) in
    `workdir`, so the second stage reads exactly those instead of generating the set again.
    """
    from benchdata import Dataset, fill_arch, load

    cached = workdir / "batches.npz"
    if cached.exists():
        with np.load(cached) as npz:
            x, y, dims = npz["x"], npz["y"], json.loads(str(npz["dims"]))
            n_train = int(npz["n_train"])
        return x, y, n_train, fill_arch(cfg, Dataset(cfg["dataset"], x, y, x, y, {"dims": dims}))
    data = load(cfg["dataset"], "synthetic", seed, cfg.get("view"))
    need = PROBE + STEPS * BATCH
    if len(data.x_train) < need:
        raise ValueError(f"dataset too small for parity: {len(data.x_train)} < {need}")
    x, y = data.x_train[:need], data.y_train[:need]
    n_train = len(data.x_train)
    np.savez(cached, x=x, y=y, n_train=n_train, dims=json.dumps(data.info.get("dims", {})))
    return x, y, n_train, fill_arch(cfg, data)


def schedule_steps(cfg: dict[str, Any], n_train: int) -> list[int]:
    """SCHEDULE_STEPS and the last step of a full run of this model (its epochs of batches)."""
    from benchdata import batching

    per_epoch = batching.steps_per_epoch(
        n_train, cfg["batch_size"], partial_batch=cfg.get("partial_batch", True)
    )
    last = per_epoch * cfg["epochs"] - 1
    return sorted({*SCHEDULE_STEPS, last})


def stage(framework: str, model_name: str, workdir: Path, reference: str = REFERENCE) -> None:
    """Runs inside a fresh process: exactly one framework is imported here.

    Trains every optimizer variant in `workdir/variants.json` ({label: {backend: spec}}) that
    names this backend, from the same initial weights, one after the other in this process. The
    reference's stage runs first and leaves the initial weights; the others import them.
    """
    import os

    from frameworks import settings
    from twinbench.machine import cpu

    os.environ.update(cpu.thread_environment(1, 1))  # one thread: deterministic reductions
    os.environ.update(settings.thread_environment(framework, 1, 1))  # XLA's, before import
    from frameworks import get_backend

    backend = get_backend(framework)
    backend.configure_threads(1, 1)
    backend.seed(0)
    variants = json.loads((workdir / "variants.json").read_text())
    cfg = without_dropout(model_config(model_name))
    x, y, n_train, cfg = _probe_and_batches(cfg, seed=0, workdir=workdir)
    model = backend.build(model_name, cfg, "cpu")
    out: dict[str, np.ndarray] = {}
    if framework == reference:
        initial = backend.export_weights(model, model_name)
        np.savez(workdir / "initial.npz", **initial)
    else:
        initial = dict(np.load(workdir / "initial.npz"))
        backend.import_weights(model, model_name, initial)
        out["roundtrip_max_abs"] = np.array(
            max(
                float(np.max(np.abs(initial[k] - v)))
                for k, v in backend.export_weights(model, model_name).items()
            )
        )
    out["params"] = np.array(backend.count_params(model))
    out["probe_out"] = backend.predict(model, model_name, x[:PROBE])
    steps = schedule_steps(cfg, n_train)
    out["schedule_steps"] = np.array(steps)
    for label, specs in variants.items():
        if framework not in specs:
            continue
        backend.import_weights(model, model_name, initial)
        variant_cfg = {**cfg, "optimizer": specs[framework]}
        step = backend.make_step(model, variant_cfg)
        losses = []
        for k in range(STEPS):
            sl = slice(PROBE + k * BATCH, PROBE + (k + 1) * BATCH)
            losses.append(step(x[sl], y[sl]))
        out[f"{label}:losses"] = np.array(losses)
        out[f"{label}:rates"] = np.array(backend.learning_rates(steps))
        # A copy: torch exports some weights as views of its parameters, which the next
        # variant trains in place.
        for k, v in backend.export_weights(model, model_name).items():
            out[f"{label}:w:{k}"] = np.array(v, copy=True)
    np.savez(workdir / f"{framework}.npz", **out)


# ---------------------------------------------------------------- orchestration (no framework)


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
    passed: bool = False
    failures: list[str] = field(default_factory=list)
    backend: str = field(kw_only=True)
    reference: str = field(default=REFERENCE, kw_only=True)


Variants = dict[str, dict[str, dict[str, Any]]]  # label -> backend -> optimizer spec


def other_backends(reference: str = REFERENCE) -> list[str]:
    """Every registered backend but the reference: what parity certifies by default."""
    registry.spec(reference)  # an unknown reference fails here, before any stage runs
    return [name for name in registry.names() if name != reference]


def _run_stages(
    model_name: str, variants: Variants, reference: str = REFERENCE
) -> dict[str, dict[str, np.ndarray]]:
    """Each backend the variants name, in its own process, the reference first: backend ->
    its stage's arrays."""
    backends = [reference, *sorted({b for specs in variants.values() for b in specs} - {reference})]
    with tempfile.TemporaryDirectory(prefix=f"parity-{model_name}-") as tmp:
        (Path(tmp) / "variants.json").write_text(json.dumps(variants))
        outputs = {}
        for framework in backends:
            progress.emit(
                f"parity: {model_name}: {framework} stage (its own process: import, build, "
                "train a few steps)...",
                log,
            )
            cmd = [sys.executable, "-m", "twinbench.parity", "--stage", framework, model_name, tmp]
            cmd += ["--reference", reference]
            proc = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True)
            if proc.returncode:
                raise RuntimeError(
                    f"{framework} parity stage for {model_name} failed:\n{proc.stderr[-3000:]}"
                )
            outputs[framework] = dict(np.load(Path(tmp) / f"{framework}.npz"))
        return outputs


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
    if beyond > OUTLIER_FRACTION * count or loss_rel > TRAIN_RTOL:
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
    figures, failures = compare_training(
        opt,
        _variant(ref_out, BASE),
        _variant(out, BASE),
        out["schedule_steps"].tolist(),
        (reference, backend),
    )
    report.training[BASE] = figures
    f.extend(failures)
    report.passed = not f
    return report


def check_all(
    model_name: str, backends: list[str] | None = None, reference: str = REFERENCE
) -> list[ParityReport]:
    """The model on `backends` (default: every registered one but the reference), each against
    the reference: one report per backend, the reference's stage run once for all."""
    backends = backends or other_backends(reference)
    cfg = model_config(model_name)
    opt = cfg["optimizer"]
    outputs = _run_stages(model_name, {BASE: {b: opt for b in [reference, *backends]}}, reference)
    return [
        _pair_report(model_name, cfg, outputs[reference], outputs[b], b, reference)
        for b in backends
    ]


def check(model_name: str, backend: str, reference: str = REFERENCE) -> ParityReport:
    """One pair: `backend` against the reference."""
    return check_all(model_name, [backend], reference)[0]


def check_variants(
    model_name: str, variants: Variants, reference: str = REFERENCE
) -> dict[str, list[str]]:
    """Training parity of several optimizer variants of one model (one process per backend):
    label -> failures (empty where every backend the variant names agrees with the reference).
    The tolerances are those of the spec the reference ran."""
    outputs = _run_stages(model_name, variants, reference)
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
            )[1]
        result[label] = failures
    return result


# ---------------------------------------------------------------- certificates


def certificate_path(
    model_name: str, directory: Path = CERT_DIR, backend: str | None = None
) -> Path:
    """A pair's certificate, <model>.<backend>.json; without a backend, the model's summary of
    every pair, <model>.json."""
    return directory / (f"{model_name}.{backend}.json" if backend else f"{model_name}.json")


def _command(model_name: str, backend: str | None = None) -> str:
    return f"python -m twinbench.parity {model_name}" + (
        f" --backends {backend}" if backend else ""
    )


def write_certificate(report: ParityReport, directory: Path = CERT_DIR) -> Path:
    """The pair's certificate, then the model's summary rewritten from every pair certified."""
    path = certificate_path(report.model, directory, report.backend)
    printed = fingerprint(report.model)
    results.write_atomic(
        path,
        {
            **asdict(report),
            "fingerprint": printed,
            "checked": environment.now_iso(),
            "command": _command(report.model, report.backend),
        },
    )
    _write_summary(report.model, directory, printed)
    return path


def _write_summary(model_name: str, directory: Path, printed: dict[str, Any]) -> None:
    """<model>.json: every pair certificate in `directory` taken together (the worst figures,
    all failures, pass only where every certified pair passes)."""
    pairs = {
        cert["backend"]: cert
        for p in sorted(directory.glob(f"{model_name}.*.json"))
        if isinstance(cert := results.read(p), dict) and cert.get("model") == model_name
    }
    if not pairs:
        return
    worst = max(pairs.values(), key=lambda c: c["forward_max_abs_diff"])
    params: dict[str, int] = {}
    for cert in pairs.values():
        params.update(cert.get("params") or {})
    results.write_atomic(
        certificate_path(model_name, directory),
        {
            "model": model_name,
            "reference": worst.get("reference"),
            "backends": sorted(pairs),
            "params": params,
            "expected_params": worst.get("expected_params"),
            "forward_max_abs_diff": worst["forward_max_abs_diff"],
            "weight_roundtrip_max_abs_diff": max(
                c["weight_roundtrip_max_abs_diff"] for c in pairs.values()
            ),
            "optimizer": worst.get("optimizer"),
            "training": {
                BASE: max(
                    (c.get("training", {}).get(BASE) or {} for c in pairs.values()),
                    key=lambda t: t.get("weight_max_abs_diff", 0.0),
                )
            },
            "passed": all(c["passed"] for c in pairs.values()),
            "failures": [f"{b}: {f}" for b, c in pairs.items() for f in c.get("failures") or []],
            "fingerprint": printed,
            "checked": max(c["checked"] for c in pairs.values()),
            "command": _command(model_name),
        },
    )


def status(
    model_name: str, directory: Path = CERT_DIR, backend: str | None = None
) -> dict[str, Any]:
    """What result.json records about the model's equivalence on `backend` (against the
    reference; for the reference itself or no backend, the summary of every pair): the
    certificate's verdict, or "stale" where the code, config or framework versions it certified
    have changed since."""
    if backend is not None and backend == _reference_of(model_name, directory):
        backend = None
    path = certificate_path(model_name, directory, backend)
    command = _command(model_name, backend)
    current = fingerprint(model_name)
    if not path.exists():
        return {"status": "not checked", "command": command, "fingerprint": current}
    cert = results.read(path)
    changed = differences(cert.get("fingerprint") or {}, current)
    verdict = "stale" if changed else ("pass" if cert["passed"] else "fail")
    return {
        "status": verdict,
        **({"changed_since": changed} if changed else {}),
        "certificate": str(path),
        "checked": cert["checked"],
        "forward_max_abs_diff": cert["forward_max_abs_diff"],
        "fingerprint": current,
        "command": command,
    }


def _reference_of(model_name: str, directory: Path) -> str:
    """The reference the model's summary certificate names (REFERENCE where there is none)."""
    path = certificate_path(model_name, directory)
    cert = results.read(path) if path.exists() else None
    return (cert or {}).get("reference") or REFERENCE


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--stage":
        framework, model_name, workdir = argv[1:4]
        reference = argv[argv.index("--reference") + 1] if "--reference" in argv else REFERENCE
        stage(framework, model_name, Path(workdir), reference)
        return 0
    progress.cli_logging("--quiet" in argv, ("twinbench.parity",))
    argv = [arg for arg in argv if arg != "--quiet"]
    from twinbench.config import checks as cli

    options = {}
    for flag in ("--reference", "--backends"):
        if flag in argv:
            at = argv.index(flag)
            if at + 1 >= len(argv):
                cli.fail(f"{flag} needs a value")
            options[flag] = argv[at + 1]
            del argv[at : at + 2]
    reference = options.get("--reference", REFERENCE)
    chosen = options["--backends"].split(",") if "--backends" in options else None
    for name in [reference, *(chosen or [])]:
        if name not in registry.names():
            cli.fail(f"unknown backend '{name}'; choose one of: {', '.join(registry.names())}")
    names = group_choices("model") if argv == ["--all"] or not argv else argv
    unknown = [name for name in names if name not in group_choices("model")]
    if unknown:
        cli.fail(
            f"unknown model '{unknown[0]}'; choose one of: {', '.join(group_choices('model'))} "
            "(or --all)"
        )
    failed = 0
    for name in names:
        for report in check_all(name, chosen, reference):
            path = write_certificate(report)
            print(
                f"{name:<12} {report.backend:<12} {'PASS' if report.passed else 'FAIL'}  "
                f"forward diff {report.forward_max_abs_diff:.2g}  "
                f"params {report.params[report.backend]:,}  -> {path}"
            )
            for failure in report.failures:
                print(f"    {failure}")
            failed += not report.passed
    return 1 if failed else 0
