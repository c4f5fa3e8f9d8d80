"""Equivalence of a model's two halves (GUIDE §3), each framework in its own process.

    python -m twinbench.parity mlp cnn ...     # or --all; writes results/parity/<model>.json

1. Keras builds the model (seeded) and exports canonical weights; torch imports them.
2. Forward parity: both predict the same probe batch in inference mode (float32).
3. Training parity: from the same weights, dropout off, both take the same STEPS optimizer steps
   on the same batches; losses and final weights are compared.
   Where the built-in optimizers differ in formula (RMSprop and Adam place epsilon differently),
   the steps run twice: with epsilon made negligible, where the formulas coincide and agreement
   must be tight (this proves lr, rho, betas, decay and gradients are the same); and with the
   configured epsilon, where the difference is bounded by the optimizers' maximum step size.
   BatchNorm moving variances are checked against the range torch's unbiased update allows.
The orchestration here is numpy only; frameworks load in the stage subprocesses.
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from twinbench import REPO_ROOT, WORK_ROOT, environment, results
from twinbench.config import CONF_DIR, group_choices

STEPS = 5
BATCH = 32
PROBE = 64
NEGLIGIBLE_EPS = 1e-30  # epsilon that vanishes next to any non-zero gradient moment
CERT_DIR = WORK_ROOT / "results" / "parity"

# float32 tolerances. Forward: both compute the same sums in different orders (oneDNN vs MKL).
FORWARD_RTOL, FORWARD_ATOL = 1e-4, 1e-5
# Training with formulas made equal: rounding differences grow a little with each step, and
# adaptive optimizers (update ~ g / sqrt(v)) amplify them where gradients are small, in proportion
# to the step: weights must agree to TRAIN_ATOL or to DRIFT_FRACTION of the distance the
# optimizer could move them apart in STEPS steps (see drift()), whichever is larger.
TRAIN_RTOL, TRAIN_ATOL, DRIFT_FRACTION = 1e-3, 1e-5, 1e-3
# BatchNorm moving variances are compared apart: torch updates them with the unbiased batch
# variance (n / (n - 1) times Keras' biased one), so torch's ends up larger by at most
# 1 / (BATCH - 1) of Keras' (the normalisation itself uses the biased variance in both).
MOVING_VARIANCE = "/moving_variance"
# Optimizers whose epsilon enters both frameworks' update identically.
SAME_FORMULA = {"adadelta"}


def model_config(name: str) -> dict[str, Any]:
    from omegaconf import OmegaConf

    return OmegaConf.to_container(OmegaConf.load(CONF_DIR / "model" / f"{name}.yaml"), resolve=True)


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


def moving_variance_excess(keras_var: np.ndarray, torch_var: np.ndarray) -> float:
    """How far torch's moving variance lies outside [Keras', Keras' * (1 + 1/(BATCH-1))], the
    interval its unbiased updates can reach (0 inside it, the excess beyond it otherwise)."""
    low, high = keras_var - TRAIN_ATOL, keras_var * (1 + 1 / (BATCH - 1)) + TRAIN_ATOL
    return max(0.0, float(np.max(np.maximum(low - torch_var, torch_var - high))))


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
    """The probe and training batches, and the config with the data's sizes filled in.

    The first stage generates the data and leaves the few rows parity needs (and the sizes) in
    `workdir`, so the second stage reads exactly those instead of generating the set again.
    """
    import json

    from benchdata import Dataset, fill_arch, load

    cached = workdir / "batches.npz"
    if cached.exists():
        with np.load(cached) as npz:
            x, y, dims = npz["x"], npz["y"], json.loads(str(npz["dims"]))
        return x, y, fill_arch(cfg, Dataset(cfg["dataset"], x, y, x, y, {"dims": dims}))
    data = load(cfg["dataset"], "synthetic", seed, cfg.get("view"))
    need = PROBE + STEPS * BATCH
    if len(data.x_train) < need:
        raise ValueError(f"dataset too small for parity: {len(data.x_train)} < {need}")
    x, y = data.x_train[:need], data.y_train[:need]
    np.savez(cached, x=x, y=y, dims=json.dumps(data.info.get("dims", {})))
    return x, y, fill_arch(cfg, data)


def stage(framework: str, model_name: str, workdir: Path, eps: float | None) -> None:
    """Runs inside a fresh process: exactly one framework is imported here."""
    import os

    from twinbench import cpu

    os.environ.update(cpu.thread_environment(1, 1))  # one thread: deterministic reductions
    from frameworks import get_backend

    backend = get_backend(framework)
    backend.configure_threads(1, 1)
    backend.seed(0)
    cfg = without_dropout(model_config(model_name))
    if eps is not None:
        cfg["optimizer"] = {**cfg["optimizer"], "eps": eps}
    x, y, cfg = _probe_and_batches(cfg, seed=0, workdir=workdir)
    model = backend.build(model_name, cfg, "cpu")
    out: dict[str, np.ndarray] = {}
    if framework == "tensorflow":
        weights = backend.export_weights(model, model_name)
        np.savez(workdir / "initial.npz", **weights)
    else:
        weights = dict(np.load(workdir / "initial.npz"))
        backend.import_weights(model, model_name, weights)
        out["roundtrip_max_abs"] = np.array(
            max(
                float(np.max(np.abs(weights[k] - v)))
                for k, v in backend.export_weights(model, model_name).items()
            )
        )
    out["params"] = np.array(backend.count_params(model))
    out["probe_out"] = backend.predict(model, model_name, x[:PROBE])
    step = backend.make_step(model, cfg)
    if isinstance(step, tuple):  # torch returns (step, objective)
        step = step[0]
    losses = []
    for k in range(STEPS):
        sl = slice(PROBE + k * BATCH, PROBE + (k + 1) * BATCH)
        losses.append(float(_as_float(step(_to(framework, x[sl]), _to(framework, y[sl])))))
    out["losses"] = np.array(losses)
    final = backend.export_weights(model, model_name)
    np.savez(workdir / f"{framework}.npz", **out, **{f"w:{k}": v for k, v in final.items()})


def _to(framework: str, a: np.ndarray):
    if framework == "torch":
        import torch

        return torch.from_numpy(np.ascontiguousarray(a))
    return a


def _as_float(loss) -> float:
    loss = loss[0] if isinstance(loss, tuple) else loss
    return float(loss.item() if hasattr(loss, "item") else loss)


# ---------------------------------------------------------------- orchestration (no framework)


@dataclass
class ParityReport:
    model: str
    params: dict[str, int]
    expected_params: int | None
    forward_max_abs_diff: float
    weight_roundtrip_max_abs_diff: float
    training: dict[str, dict[str, Any]] = field(default_factory=dict)
    passed: bool = False
    failures: list[str] = field(default_factory=list)


def _run_stages(model_name: str, eps: float | None) -> tuple[dict, dict]:
    with tempfile.TemporaryDirectory(prefix=f"parity-{model_name}-") as tmp:
        for framework in ("tensorflow", "torch"):
            what = "configured optimizer" if eps is None else "equal-formula check"
            print(f"parity: {model_name}: {framework} half ({what})...", flush=True)
            cmd = [
                sys.executable,
                "-m",
                "twinbench.parity",
                "--stage",
                framework,
                model_name,
                tmp,
                "none" if eps is None else repr(eps),
            ]
            proc = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True)
            if proc.returncode:
                raise RuntimeError(
                    f"{framework} parity stage for {model_name} failed:\n{proc.stderr[-3000:]}"
                )
        return (dict(np.load(Path(tmp) / "tensorflow.npz")), dict(np.load(Path(tmp) / "torch.npz")))


def _weights(npz: dict) -> dict[str, np.ndarray]:
    return {k[2:]: v for k, v in npz.items() if k.startswith("w:")}


def check(model_name: str) -> ParityReport:
    cfg = model_config(model_name)
    tf_out, pt_out = _run_stages(model_name, eps=None)
    report = ParityReport(
        model=model_name,
        params={"tensorflow": int(tf_out["params"]), "torch": int(pt_out["params"])},
        expected_params=cfg.get("expected_params"),
        forward_max_abs_diff=float(np.max(np.abs(tf_out["probe_out"] - pt_out["probe_out"]))),
        weight_roundtrip_max_abs_diff=float(pt_out["roundtrip_max_abs"]),
    )
    f = report.failures
    if report.params["tensorflow"] != report.params["torch"]:
        f.append(f"parameter counts differ: {report.params}")
    if report.expected_params and report.params["torch"] != report.expected_params:
        f.append(f"parameter count {report.params['torch']} != original {report.expected_params}")
    if report.weight_roundtrip_max_abs_diff != 0.0:
        f.append("weights changed on the canonical -> torch -> canonical round trip")
    if not np.allclose(pt_out["probe_out"], tf_out["probe_out"], FORWARD_RTOL, FORWARD_ATOL):
        f.append(f"forward outputs differ by up to {report.forward_max_abs_diff:.3g}")

    opt = cfg["optimizer"]
    modes = {"configured": (tf_out, pt_out)}
    if opt["name"] not in SAME_FORMULA:
        modes["equal_formula"] = _run_stages(model_name, eps=NEGLIGIBLE_EPS)
    for mode, (a, b) in modes.items():
        wa, wb = _weights(a), _weights(b)
        variances = [k for k in wa if k.endswith(MOVING_VARIANCE)]
        weight_diff = max(float(np.max(np.abs(wa[k] - wb[k]))) for k in wa if k not in variances)
        loss_rel = float(np.max(np.abs(a["losses"] - b["losses"]) / np.abs(a["losses"])))
        tight = mode == "equal_formula" or opt["name"] in SAME_FORMULA
        bound = tight_bound(opt) if tight else drift(opt)
        report.training[mode] = {
            "steps": STEPS,
            "losses_tensorflow": a["losses"].tolist(),
            "losses_torch": b["losses"].tolist(),
            "loss_max_rel_diff": loss_rel,
            "weight_max_abs_diff": weight_diff,
            "weight_bound": bound,
        }
        if weight_diff > bound or (tight and loss_rel > TRAIN_RTOL):
            f.append(
                f"{mode} training: weights differ by {weight_diff:.3g} (bound {bound:.3g}), "
                f"losses by {loss_rel:.3g} relative"
            )
        if variances:
            excess = max(moving_variance_excess(wa[k], wb[k]) for k in variances)
            report.training[mode]["moving_variance_max_abs_diff"] = max(
                float(np.max(np.abs(wa[k] - wb[k]))) for k in variances
            )
            report.training[mode]["moving_variance_excess"] = excess
            if excess > 0 and tight:
                f.append(f"{mode} training: BatchNorm moving variance off by {excess:.3g}")
    report.passed = not f
    return report


def certificate_path(model_name: str, directory: Path = CERT_DIR) -> Path:
    return directory / f"{model_name}.json"


def write_certificate(report: ParityReport, directory: Path = CERT_DIR) -> Path:
    path = certificate_path(report.model, directory)
    results.write_atomic(
        path,
        {
            **asdict(report),
            "checked": environment.now_iso(),
            "command": f"python -m twinbench.parity {report.model}",
        },
    )
    return path


def status(model_name: str, directory: Path = CERT_DIR) -> dict[str, Any]:
    """What result.json records about the model's equivalence: the certificate's verdict."""
    path = certificate_path(model_name, directory)
    command = f"python -m twinbench.parity {model_name}"
    if not path.exists():
        return {"status": "not checked", "command": command}
    cert = results.read(path)
    return {
        "status": "pass" if cert["passed"] else "fail",
        "certificate": str(path),
        "checked": cert["checked"],
        "forward_max_abs_diff": cert["forward_max_abs_diff"],
        "command": command,
    }


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--stage":
        framework, model_name, workdir, eps = argv[1:5]
        stage(framework, model_name, Path(workdir), None if eps == "none" else float(eps))
        return 0
    names = group_choices("model") if argv == ["--all"] or not argv else argv
    failed = 0
    for name in names:
        report = check(name)
        path = write_certificate(report)
        print(
            f"{name:<12} {'PASS' if report.passed else 'FAIL'}  forward diff "
            f"{report.forward_max_abs_diff:.2g}  params {report.params['torch']:,}  -> {path}"
        )
        for failure in report.failures:
            print(f"    {failure}")
        failed += not report.passed
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
