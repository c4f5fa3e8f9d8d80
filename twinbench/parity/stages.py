"""The per-backend stage of a parity check, and running them: each backend in its own process
(`python -m twinbench.parity --stage BACKEND MODEL WORKDIR`), exactly one framework imported in
each, the reference first; they exchange the canonical weights and their results through files in
WORKDIR."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from frameworks import allocator, layer_parity, registry
from frameworks.tolerances import BASE, BATCH, PROBE, REFERENCE, SCHEDULE_STEPS, STEPS
from models.catalog import model_config
from twinbench.launch import lifeline
from twinbench.parity import draws
from twinbench.paths import REPO_ROOT
from twinbench.ui import progress

# named for the package, not this module: `--quiet` silences "twinbench.parity" (cli.py)
log = logging.getLogger("twinbench.parity")

# How often the parent looks for finished stages: small beside a stage's seconds.
STAGE_POLL_S = 0.05
Variants = dict[str, dict[str, dict[str, Any]]]  # label -> backend -> optimizer spec


def without_dropout(cfg: dict[str, Any]) -> dict[str, Any]:
    """Dropout off: every arch key naming a dropout rate is set to 0."""
    arch = {k: (0.0 if "dropout" in k else v) for k, v in cfg["arch"].items()}
    return {**cfg, "arch": arch}


def _probe_and_batches(cfg: dict[str, Any], seed: int, workdir: Path):
    """The probe and training batches, the training set's size, and the config with the data's
    sizes filled in.

    The first stage generates the data and leaves the few rows parity needs (and the sizes) in
    `workdir`, so the second stage reads exactly those instead of generating the set again.
    """
    from benchdata import Dataset, cache, fill_arch, load

    cached = workdir / "batches.npz"
    if cached.exists():
        with np.load(cached) as npz:
            x, y, dims = npz["x"], npz["y"], json.loads(str(npz["dims"]))
            n_train = int(npz["n_train"])
        return x, y, n_train, fill_arch(cfg, Dataset(cfg["dataset"], x, y, x, y, {"dims": dims}))
    # The data sets runs keep between processes (benchdata/cache.py): the same arrays, CRC-checked,
    # instead of 2-5 s of generating per model in every certifying process.
    data = load(
        cfg["dataset"], "synthetic", seed, cfg.get("view"), synthetic_cache=cache.default_dir()
    )
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


def stage(
    framework: str,
    model_names: list[str],
    workdir: Path,
    reference: str = REFERENCE,
    draws_only: bool = False,
    model_stage: Callable[..., None] | None = None,
) -> None:
    """Runs inside a fresh process: exactly one framework is imported here, and one thread.

    Each model in turn, in its own folder `workdir/<model>` (stage_model), from a fresh session
    and seed: one process serves several models because starting a framework costs seconds
    and parity of every model would otherwise pay it once per model and backend.
    `model_stage` replaces stage_model (precision_stage.stage_model for bfloat16 parity); it
    takes the same (backend, framework, model, folder, reference).
    """
    import os

    from frameworks import settings
    from twinbench.machine import cpu

    registry.keep_to_own_runtime(framework)  # exactly one runtime in this process
    os.environ.update(cpu.thread_environment(1, 1))  # one thread: deterministic reductions
    os.environ.update(settings.thread_environment(framework, 1, 1))  # XLA's, before import
    from frameworks import get_backend

    backend = get_backend(framework)
    backend.configure_threads(1, 1)  # once: TensorFlow's pools cannot change after start-up
    for model_name in model_names:
        backend.fresh_session()
        backend.seed(0)
        if model_stage is not None:
            model_stage(backend, framework, model_name, workdir / model_name, reference)
            continue
        stage_model(backend, framework, model_name, workdir / model_name, reference, draws_only)


def stage_model(
    backend: Any,
    framework: str,
    model_name: str,
    workdir: Path,
    reference: str = REFERENCE,
    draws_only: bool = False,
) -> None:
    """One model's stage. Trains every optimizer variant in `workdir/variants.json` ({label:
    {backend: spec}}) that names this backend, from the same initial weights, one after the
    other. The reference's stage runs first and leaves the initial weights; the others import
    them. Then the backend's own random draws (draws.py); with `draws_only`, those alone.
    """
    variants = json.loads((workdir / "variants.json").read_text())
    cfg = without_dropout(model_config(model_name))
    x, y, n_train, cfg = _probe_and_batches(cfg, seed=0, workdir=workdir)
    is_reference = framework == reference
    if draws_only:
        found = draws.draw(
            backend, model_name, draws.training_config(model_name, cfg), is_reference, x,
            weights=workdir / "initial.npz",
        )  # fmt: skip
        np.savez(workdir / f"{framework}.npz", **found)
        return
    model = backend.build(model_name, cfg, "cpu")
    out: dict[str, np.ndarray] = {}
    if is_reference:
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
    out.update(layer_parity.record(backend, model, model_name, x[:PROBE]))
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
    # Last, so that its builds leave the training figures' random streams as they were; only
    # for a certificate (the BASE variant), not for the optimizer variants tests compare.
    if BASE in variants:
        training_cfg = draws.training_config(model_name, cfg)
        out.update(
            draws.draw(
                backend, model_name, training_cfg, is_reference, x, weights=workdir / "initial.npz"
            )
        )
    np.savez(workdir / f"{framework}.npz", **out)


def other_backends(reference: str = REFERENCE) -> list[str]:
    """Every registered backend but the reference: what parity certifies by default."""
    registry.spec(reference)  # an unknown reference fails here, before any stage runs
    return [name for name in registry.names() if name != reference]


def run_stages(
    model_name: str, variants: Variants, reference: str = REFERENCE, draws_only: bool = False
) -> dict[str, dict[str, np.ndarray]]:
    """Each backend the variants name, in its own process, the reference first: backend ->
    its stage's arrays (with `draws_only`, its random draws alone: no training)."""
    return run_stages_many({model_name: variants}, reference, draws_only)[model_name]


# A stage measures nothing, so it keeps freed memory as backend.allocator=retain does: the test
# suite's parity set of every model on every backend took 175-188 s against 182-198 s under
# glibc's defaults, 42-44 s of system time against 56-58 (docs/findings/2026-12-07-allocator-
# page-faults.md). The math it certifies does not depend on where malloc finds its blocks.
STAGE_MALLOC = allocator.environment(allocator.RETAIN)


@dataclass(frozen=True)
class StageJob:
    framework: str
    models: list[str]
    cmd: list[str]


def run_stage_processes(jobs: list[StageJob], workdir: Path, parallel: int) -> None:
    """Run the stage processes, at most `parallel` at once; the first that fails raises with its
    stderr's tail once the others are stopped.

    Started from this thread (a worker asks for SIGKILL when the thread that started it ends,
    lifeline.py); on SIGTERM or Ctrl-C the Interrupted exception passes through the wait below,
    which kills every stage still running, and the temporary folder goes too. Output goes to
    files: several pipes read by one thread could fill and stall a stage."""
    pending, running = list(jobs), {}
    try:
        while pending or running:
            while pending and len(running) < max(1, parallel):
                job = pending.pop(0)
                progress.emit(
                    f"parity: {', '.join(job.models)}: {job.framework} stage (its own process: "
                    "import, build, train a few steps)...",
                    log,
                )
                err = open(workdir / f"{job.framework}.stderr", "w+")  # noqa: SIM115 (closed below)
                proc = subprocess.Popen(
                    job.cmd, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=err, text=True,
                    env=lifeline.child_env({**os.environ, **STAGE_MALLOC}),
                )  # fmt: skip
                running[job.framework] = (job, proc, err)
            for framework, (job, proc, err) in list(running.items()):
                if proc.poll() is None:
                    continue
                del running[framework]
                err.seek(0)
                tail = err.read()[-3000:]
                err.close()
                if proc.returncode:
                    raise RuntimeError(
                        f"{framework} parity stage for {', '.join(job.models)} failed:\n{tail}"
                    )
            time.sleep(STAGE_POLL_S)
    finally:
        for _, proc, err in running.values():
            proc.kill()
            proc.wait()
            err.close()


def run_stages_many(
    variants: dict[str, Variants],
    reference: str = REFERENCE,
    draws_only: bool = False,
    precision: str | None = None,
    stage_flags: tuple[str, ...] = (),
) -> dict[str, dict[str, dict[str, np.ndarray]]]:
    """Several models' stages ({model: its variants}), one process per backend for all of them,
    the reference's first: model -> backend -> its stage's arrays. With `precision`, the
    precision stages (precision_stage.py), whose variants map each backend to a mutation."""
    named = {b for per_model in variants.values() for specs in per_model.values() for b in specs}
    backends = [reference, *sorted(named - {reference})]
    models = list(variants)
    with tempfile.TemporaryDirectory(prefix=f"parity-{'-'.join(models)[:60]}-") as tmp:
        for model_name, per_model in variants.items():
            (Path(tmp) / model_name).mkdir()
            (Path(tmp) / model_name / "variants.json").write_text(json.dumps(per_model))
        outputs: dict[str, dict[str, dict[str, np.ndarray]]] = {m: {} for m in models}
        jobs = []
        for framework in backends:
            # the reference runs every model: it leaves the initial weights and batches
            wanted = [
                m
                for m in models
                if framework == reference or any(framework in s for s in variants[m].values())
            ]
            if not wanted:
                continue
            cmd = [sys.executable, "-m", "twinbench.parity", "--stage", framework]
            cmd += [",".join(wanted), tmp, "--reference", reference]
            cmd += ["--draws-only"] if draws_only else []
            cmd += ["--precision", precision] if precision else []
            cmd += list(stage_flags)  # another stage's own options (spread.py: --spread N)
            jobs.append(StageJob(framework, wanted, cmd))
        # The reference first (the others read its weights and batches), then the others side by
        # side, as many at once as this process has cores: each stage computes on one thread.
        run_stage_processes(jobs[:1], Path(tmp), parallel=1)
        run_stage_processes(jobs[1:], Path(tmp), parallel=len(os.sched_getaffinity(0)))
        for job in jobs:
            for model_name in job.models:
                path = Path(tmp) / model_name / f"{job.framework}.npz"
                outputs[model_name][job.framework] = dict(np.load(path))
        return outputs
