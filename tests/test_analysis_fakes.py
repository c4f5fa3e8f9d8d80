"""Hand-made result records for the analysis tests (no training: every number is chosen here).

Epoch times are binary fractions (0.5, 0.75, 1.5...) so sums and quotients are exact and the
tests can compare with == where the arithmetic allows it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

MACHINE = "Test CPU x8"


def record(
    backend: str,
    cpus: int,
    epoch_times: list[float],
    *,
    model: str = "mlp",
    repeat: int = 0,
    repeats: int = 1,
    machine: str = MACHINE,
    device: str = "cpu",
    settings: dict[str, Any] | None = None,
    opt: str | None = None,
    started: str | None = None,
    flops: dict[str, float] | None = None,
    threads: tuple[int, int] | None = None,
    run_key: str | None = None,
    steady_step: float | None = None,
) -> dict[str, Any]:
    """A schema-1 record with the keys twinbench writes (and the newer optional ones)."""
    intra, inter = threads or (cpus, cpus)
    n = len(epoch_times)
    config = {
        "backend": {"name": backend, **(settings or {})},
        "model": {"name": model, "epochs": n, "batch_size": 128},
        "data": {"source": "synthetic"},
        "cpus": cpus,
        "threads": intra,
        "interop_threads": inter,
        "device": device,
        "epochs": n,
        "max_steps": 20,
        "seed": 0,
        "repeat": repeat,
        "repeats": repeats,
    }
    if opt is not None:
        config["opt"] = opt
    rec: dict[str, Any] = {
        "schema_version": 1,
        "status": "ok",
        "run_key": run_key or f"{backend}-{model}-{device}-{cpus}-{intra}-{json.dumps(settings)}",
        "repeat": repeat,
        "repeats": repeats,
        "backend": backend,
        "model": model,
        "params": 669706,
        "expected_params": 669706,
        "cpus": cpus,
        "threads_requested": {"intra_op": intra, "inter_op": inter},
        "threads_actual": {"intra_op": intra, "inter_op": inter},
        "device": device,
        "framework": {"framework": backend, "version": f"{backend}-test-1.0", "build": {}},
        "data": {"dataset": "mnist", "source": "synthetic", "seed": 0},
        "epochs": n,
        "batch_size": 128,
        "steps_per_epoch": 20,
        "epoch_times_s": list(epoch_times),
        "history": {
            "loss": [1.0 / (i + 1) for i in range(n)],
            "accuracy": [0.5 + 0.1 * i for i in range(n)],
            "val_loss": [1.1 / (i + 1) for i in range(n)],
            "val_accuracy": [0.45 + 0.1 * i for i in range(n)],
        },
        "startup": {"framework_import_s": 1.5, "first_step_s": 0.25},
        "parity": {"status": "pass", "command": f"python -m twinbench.parity {model}"},
        "environment": {
            "hostname": "testhost",
            "cpu_model": machine.rsplit(" x", 1)[0],
            "isa_flags": ["avx2", "fma"],
            "logical_cores": 8,
            "physical_cores": 4,
            "cgroup_cpu_quota": None,
            "python": "3.11.7",
            "fingerprint": machine,
        },
        "started": started or f"2026-01-01T00:{cpus:02d}:{repeat:02d}+00:00",
        "finished": "2026-01-01T01:00:00+00:00",
        "config": config,
    }
    if settings is not None:
        rec["settings"] = settings
    if flops is not None:
        rec["flops"] = flops
    if steady_step is not None:
        rec["timing"] = {
            "steady_step_s": {"median": steady_step, "ci_low": steady_step * 0.99,
                              "ci_high": steady_step * 1.01, "unstable": False},
            "steady_samples_per_s": 128 / steady_step,
            "drift": {"ratio_last_to_first_third": 1.0, "drifting": False},
        }  # fmt: skip
    return rec


def failed(backend: str, cpus: int, error: str, *, model: str = "mlp") -> dict[str, Any]:
    """What the parent writes when a worker dies: no measurements, the stable keys kept."""
    return {
        "schema_version": 1,
        "status": "failed",
        "error": error,
        "error_kind": "crash",
        "run_key": f"{backend}-{model}-cpu-{cpus}-failed",
        "repeat": 0,
        "backend": backend,
        "model": model,
        "params": None,
        "cpus": cpus,
        "threads_requested": {"intra_op": cpus, "inter_op": cpus},
        "threads_actual": None,
        "device": "cpu",
        "epoch_times_s": [],
        "config": {
            "backend": {"name": backend},
            "model": {"name": model, "epochs": 2},
            "cpus": cpus,
            "epochs": 2,
            "max_steps": 20,
        },
    }


def write(root: Path, name: str, rec: dict[str, Any]) -> Path:
    """root/name/result.json, as a sweep lays runs out."""
    path = Path(root) / name / "result.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rec, indent=1))
    return path


def sweep(root: Path, times: dict[tuple[str, int], list[list[float]]], **kw: Any) -> list[Path]:
    """One record per repeat: times[(backend, cpus)] = [epoch times of repeat 0, of repeat 1...]."""
    paths = []
    for (backend, cpus), per_repeat in times.items():
        for i, epoch_times in enumerate(per_repeat):
            rec = record(backend, cpus, epoch_times, repeat=i, repeats=len(per_repeat), **kw)
            name = f"{kw.get('model', 'mlp')}_{backend}_cpu{cpus}/repeat-{i}"
            paths.append(write(root, name, rec))
    return paths
