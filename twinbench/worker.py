"""The measured process: one run, one framework, in a fresh interpreter.

Order matters and is the point of this module:
1. pin CPU affinity and set the native thread variables (no framework loaded yet);
2. import exactly one framework adapter;
3. apply its thread settings and read them back, failing on a mismatch;
4. build data and model, train, and write result.json atomically.

Usage: python -m twinbench.worker <run_dir>   (reads <run_dir>/spec.json)
"""

from __future__ import annotations

import os
import sys
import time
import traceback
from pathlib import Path
from typing import Any

from twinbench import cpu, environment, parity, results
from twinbench.config import RunSpec, spec_from_file

SPEC_FILE = "spec.json"


def apply_cpu_budget(spec: RunSpec) -> dict[str, Any]:
    """Steps 1: affinity and thread variables, before any framework import."""
    affinity = cpu.pin(spec.cores)
    env = cpu.thread_environment(spec.threads, spec.interop_threads)
    os.environ.update(env)
    return {"affinity": affinity, "thread_env": env}


def _print_epoch(spec: RunSpec, clock):
    def progress(epoch: int, history) -> None:
        t = clock.epoch_times_s()[-1]
        print(
            f"  [{spec.backend} {spec.model} cpus={spec.cpus}] epoch {epoch + 1}/{spec.epochs} "
            f"{t:7.2f}s  loss {history.loss[-1]:.4f}  acc {history.accuracy[-1]:.4f}  "
            f"val_loss {history.val_loss[-1]:.4f}  val_acc {history.val_accuracy[-1]:.4f}",
            flush=True,
        )

    return progress


def run(spec: RunSpec, run_dir: Path) -> dict[str, Any]:
    started = environment.now_iso()
    t_process = time.perf_counter_ns()
    budget = apply_cpu_budget(spec)

    from benchdata import batching, load
    from frameworks import get_backend
    from frameworks.base import TrainPlan
    from frameworks.timing import RunClock

    t0 = time.perf_counter_ns()
    backend = get_backend(spec.backend)  # the framework import happens here
    import_s = (time.perf_counter_ns() - t0) / 1e9
    threads = backend.configure_threads(spec.threads, spec.interop_threads)
    backend.check_device(spec.device)
    backend.seed(spec.seed)

    mc = spec.model_cfg
    data = load(mc["dataset"], spec.data["source"], spec.seed, mc.get("view"))
    n_train, bs = len(data.x_train), spec.batch_size
    plan = TrainPlan(
        epochs=spec.epochs,
        batch_size=bs,
        steps_per_epoch=batching.steps_per_epoch(n_train, bs, spec.max_steps),
        eval_steps=batching.steps_per_epoch(len(data.x_test), bs, spec.max_steps),
        orders=batching.epoch_permutations(n_train, spec.epochs, spec.seed),
        seed=spec.seed,
        device=spec.device,
    )
    model = backend.build(spec.model, mc, spec.device)
    params = backend.count_params(model)

    clock = RunClock()
    history = backend.train(model, mc, data, plan, clock, progress=_print_epoch(spec, clock))

    samples_per_epoch = min(n_train, plan.steps_per_epoch * bs)
    train_times = clock.train_times_s()
    return {
        "schema_version": results.SCHEMA_VERSION,
        "status": "ok",
        "backend": spec.backend,
        "model": spec.model,
        "params": params,
        "expected_params": mc.get("expected_params"),
        "cpus": spec.cpus,
        "threads_requested": {"intra_op": spec.threads, "inter_op": spec.interop_threads},
        "threads_actual": {"intra_op": threads.intra_op, "inter_op": threads.inter_op},
        "native_thread_pools": threads.native_pools,
        "affinity": budget["affinity"],
        "thread_env": budget["thread_env"],
        "device": spec.device,
        "framework": backend.describe(),
        "data": {"dataset": data.name, **data.info, "n_train": n_train, "n_test": len(data.x_test)},
        "epochs": spec.epochs,
        "batch_size": bs,
        "steps_per_epoch": plan.steps_per_epoch,
        "epoch_times_s": clock.epoch_times_s(),
        "train_times_s": train_times,
        "samples_per_s": [samples_per_epoch / t for t in train_times],
        "history": {
            "loss": history.loss,
            "accuracy": history.accuracy,
            "val_loss": history.val_loss,
            "val_accuracy": history.val_accuracy,
        },
        "startup": {
            "framework_import_s": import_s,
            "worker_to_first_epoch_s": (clock.epoch_start_ns[0] - t_process) / 1e9,
        },
        "parity": parity.status(spec.model),
        "environment": environment.describe(),
        "started": started,
        "finished": environment.now_iso(),
        "config": spec.config,
    }


def main(argv: list[str]) -> int:
    run_dir = Path(argv[1])
    raw = results.read(run_dir / SPEC_FILE)
    try:
        record = run(spec_from_file(run_dir / SPEC_FILE), run_dir)
    except Exception as exc:  # recorded, never lost: the parent reports it as a failed run
        record = results.failed_record(
            raw, f"{type(exc).__name__}: {exc}", traceback=traceback.format_exc()
        )
        results.write_atomic(run_dir / results.RESULT_FILE, record)
        print(f"error: {record['error']}", file=sys.stderr, flush=True)
        return 1
    results.write_atomic(run_dir / results.RESULT_FILE, record)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
