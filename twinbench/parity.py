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

from twinbench import REPO_ROOT, environment, results
from twinbench.config import CONF_DIR, group_choices

STEPS = 5
BATCH = 32
PROBE = 64
NEGLIGIBLE_EPS = 1e-30  # epsilon that vanishes next to any non-zero gradient moment
CERT_DIR = REPO_ROOT / "results" / "parity"

# float32 tolerances. Forward: both compute the same sums in different orders (oneDNN vs MKL).
FORWARD_RTOL, FORWARD_ATOL = 1e-4, 1e-5
# Training with formulas made equal: rounding differences grow a little with each step.
TRAIN_RTOL, TRAIN_ATOL = 1e-3, 1e-5
# Optimizers whose epsilon enters both frameworks' update identically.
SAME_FORMULA = {"adadelta"}


def model_config(name: str) -> dict[str, Any]:
    from omegaconf import OmegaConf

    return OmegaConf.to_container(OmegaConf.load(CONF_DIR / "model" / f"{name}.yaml"), resolve=True)


def without_dropout(cfg: dict[str, Any]) -> dict[str, Any]:
    """Dropout off: every arch key naming a dropout rate is set to 0."""
    arch = {k: (0.0 if "dropout" in k else v) for k, v in cfg["arch"].items()}
    return {**cfg, "arch": arch}


def max_step_factor(opt: dict[str, Any]) -> float:
    """Largest |update| / lr a single step can make (Kingma & Ba 2015, §2.1, and its RMSprop
    analogue): bounds how far two implementations can drift apart per step."""
    if opt["name"] == "rmsprop":
        return 1.0 / np.sqrt(1.0 - opt["rho"])
    if opt["name"] == "adam":
        return max(1.0, (1.0 - opt["beta_1"]) / np.sqrt(1.0 - opt["beta_2"]))
    return float("inf")


# ---------------------------------------------------------------- stages (one framework each)


def _probe_and_batches(cfg: dict[str, Any], seed: int):
    from benchdata import load

    data = load(cfg["dataset"], "synthetic", seed, cfg.get("view"))
    need = PROBE + STEPS * BATCH
    if len(data.x_train) < need:
        raise ValueError(f"dataset too small for parity: {len(data.x_train)} < {need}")
    return data.x_train[:need], data.y_train[:need]


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
    x, y = _probe_and_batches(cfg, seed=0)
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
        weight_diff = max(float(np.max(np.abs(wa[k] - wb[k]))) for k in wa)
        loss_rel = float(np.max(np.abs(a["losses"] - b["losses"]) / np.abs(a["losses"])))
        tight = mode == "equal_formula" or opt["name"] in SAME_FORMULA
        bound = TRAIN_ATOL if tight else 2 * STEPS * opt["lr"] * max_step_factor(opt)
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
