"""The measured process: one run, one framework, in a fresh interpreter.

Order matters and is the point of this module:
1. pin CPU affinity and set the native thread variables (no framework loaded yet);
2. import exactly one framework adapter;
3. apply its thread settings and read them back, failing on a mismatch;
4. build data and model, train, and write result.json atomically.

Usage: python -m twinbench.worker <run_dir>   (reads <run_dir>/spec.json)
"""

from __future__ import annotations

import math
import os
import sys
import time
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twinbench.config.spec import RunSpec, spec_from_file
from twinbench.launch import failed
from twinbench.machine import environment
from twinbench.measure import kernels
from twinbench.measure import peak as peak_module
from twinbench.measure import speed_of_light as sol_module
from twinbench.parity import certificates
from twinbench.result import results
from twinbench.result.record import ResultRecord
from twinbench.ui import progress
from twinbench.worker import resources
from twinbench.worker.pinning import (  # step 1, shared with the kernel probe
    SPEC_FILE,
    apply_cpu_budget,
)

STEPS_FILE = "steps.json"
T_WORKER_NS = time.perf_counter_ns()  # as early as this process can read the clock


class NonFiniteLoss(FloatingPointError):
    pass


def _on_epoch(spec: RunSpec, clock):
    """Progress on the terminal, and a stop for a loss that is no longer a number."""

    def progress(epoch: int, history) -> None:
        t = clock.epoch_times_s()[-1]
        print(
            f"  [{spec.backend} {spec.model} cpus={spec.cpus}] epoch {epoch + 1}/{spec.epochs} "
            f"{t:7.2f}s  loss {history.loss[-1]:.4f}  acc {history.accuracy[-1]:.4f}  "
            + (  # models trained without validation (conf/model `validate: false`) have none
                f"val_loss {history.val_loss[-1]:.4f}  val_acc {history.val_accuracy[-1]:.4f}"
                if history.val_loss and history.val_loss[-1] is not None
                else "no validation"  # or not on this epoch (conf/model `validate_every`)
            ),
            flush=True,
        )
        if not math.isfinite(history.loss[-1]):
            raise NonFiniteLoss(f"training loss became {history.loss[-1]} in epoch {epoch + 1}")

    return progress


def timing_record(clock, spec: RunSpec, batch_size: int) -> dict[str, Any]:
    from twinbench import stats

    width = spec.measure.get("unstable_rel_width", stats.UNSTABLE_REL_WIDTH)
    # A tick is one step, or steps_per_execution steps under Keras: report per step.
    per_tick = clock.steps_per_tick
    steps = [[ns // per_tick for ns in epoch] for epoch in clock.step_times_ns()]
    warmup_ticks = -(-int(spec.measure.get("warmup_steps", 10)) // per_tick)
    steady = stats.steady_steps(steps, warmup_ticks)
    if not steady:  # very short runs: fall back to every step but the first
        steady = [ns / 1e9 for epoch in steps for ns in epoch][1:] or [steps[0][0] / 1e9]
    step_summary = stats.summarize(steady, unstable_rel_width=width)
    return {
        "epoch_s": stats.summarize(clock.epoch_times_s(), unstable_rel_width=width).as_dict(),
        "steady_step_s": step_summary.as_dict(),
        "steady_samples_per_s": batch_size / step_summary.median,
        "steady_steps": len(steady) * per_tick,
        "steps_per_tick": per_tick,
        "warmup_steps": int(spec.measure.get("warmup_steps", 10)),
        "drift": stats.drift(steady),
    }


def budget_record(clock, spec: RunSpec, timing: dict[str, Any]) -> dict[str, Any]:
    from twinbench.result import budget

    warmup = int(spec.measure.get("warmup_steps", 10))
    return budget.from_clock(clock, warmup, timing["steady_step_s"]["median"])


def run(spec: RunSpec, run_dir: Path) -> dict[str, Any]:
    started = environment.now_iso()
    budget = apply_cpu_budget(spec)

    from benchdata import batching, download, fill_arch, holdout, load
    from frameworks import get_backend
    from frameworks.base import TrainPlan
    from frameworks.timing import RunClock

    # Data first: numpy only, and a missing or corrupt file fails before the framework loads.
    label = f"{spec.backend} {spec.model} cpus={spec.cpus}"
    # The library whose kernels run this backend: its GEMM and speed of light are the ones
    # probed under that library's name (frameworks/probes).
    runtime = failed.backend_identity(spec.backend).get("backend_runtime", spec.backend)
    progress.status(f"[{label}] data: {spec.model_cfg['dataset']} ({spec.data['source']})...")
    download.transfer_progress = progress.transfer_sender(label)  # drawn by the parent
    t_data = time.perf_counter_ns()
    mc = spec.model_cfg
    data = load(mc["dataset"], spec.data["source"], spec.seed, mc.get("view"), spec.data)
    data = holdout.apply(data, mc)  # TensorLayer's validation split (benchdata/holdout.py)
    mc = fill_arch(mc, data)  # sizes only the data knows (fastText's bigram vocabulary)
    t_data_end = time.perf_counter_ns()

    peak = None
    # The machine's GEMM peak on these cores: separate processes, cached per machine and cores.
    t_probe = time.perf_counter_ns()
    if spec.measure.get("peak_probe", True) and spec.device != "cuda":
        progress.status(
            f"[{label}] the machine's GEMM peak on these cores (measured once, then cached)..."
        )
    machine = machine_peak_record(spec, say=lambda text: progress.status(f"[{label}] {text}"))
    if spec.measure.get("speed_of_light", False) and spec.device == "cpu":
        progress.status(f"[{label}] the model's products alone: speed of light (cached)...")
    sol = sol_module.for_run(spec, mc["arch"], environment.describe()["fingerprint"])
    probe_ns = time.perf_counter_ns() - t_probe
    if machine and machine.get("machine_peak_gflops"):
        peak = machine["machine_peak_gflops"]

    progress.status(f"[{label}] importing {spec.backend}...")
    t0 = time.perf_counter_ns()
    backend = get_backend(spec.backend)  # the framework import happens here
    t_import = time.perf_counter_ns()
    threads = backend.configure_threads(spec.threads, spec.interop_threads)
    from frameworks.settings import settings_of

    backend.apply_settings(settings_of(spec.backend_cfg))
    backend.check_device(spec.device)
    backend.seed(spec.seed)
    if spec.measure.get("peak_probe", True) and spec.device == "cuda":
        progress.status(f"[{label}] measuring the matmul peak with these threads...")
        peak = backend.matmul_gflops(
            int(spec.measure.get("peak_probe_size", 2048)),
            float(spec.measure.get("peak_probe_seconds", 1.0)),
            spec.device,
        )

    n_train, bs = len(data.x_train), spec.batch_size
    plan = TrainPlan(
        epochs=spec.epochs,
        batch_size=bs,
        steps_per_epoch=batching.steps_per_epoch(
            n_train, bs, spec.max_steps, mc.get("partial_batch", True)
        ),
        eval_steps=batching.steps_per_epoch(len(data.x_test), bs, spec.max_steps),
        orders=batching.epoch_permutations(n_train, spec.epochs, spec.seed),
        seed=spec.seed,
        device=spec.device,
        validate=mc.get("validate", True),
        validate_every=mc.get("validate_every", 1),
    )
    t_build = time.perf_counter_ns()
    model = backend.build(spec.model, mc, spec.device)
    params = backend.count_params(model)
    t_train = time.perf_counter_ns()

    clock = RunClock()
    progress.status(f"[{label}] training: first steps include tracing and warm-up...")
    cpu_before_training_s = resources.cpu_seconds()
    # A separate thread reads the clock once a second: nothing is added to the timed steps.
    with progress.EpochProgress(clock, label, spec.epochs, plan.steps_per_epoch):
        history = backend.train(model, mc, data, plan, clock, progress=_on_epoch(spec, clock))

    train_wall_s = (clock.epoch_end_ns[-1] - clock.epoch_start_ns[0]) / 1e9
    used = resources.usage(cpu_before_training_s, train_wall_s)
    settings_in_effect = backend.settings_report()
    step_ns = clock.step_times_ns()
    results.write_atomic(run_dir / STEPS_FILE, {"unit": "ns", "per_epoch": step_ns})
    timing = timing_record(clock, spec, bs)
    profile = None
    if spec.config.get("profile"):  # after the timed steps: the profiler never touches them
        from frameworks import profiling

        t_profile = clock.now_ns()
        profile = profiling.profile(
            backend, model, mc, data, plan,
            steps=int(spec.measure.get("profile_steps", 10)),
            warmup=int(spec.measure.get("profile_warmup_steps", 3)),
        )  # fmt: skip
        # Evidence, on the run's own clock, that the profiler started after the last timed step.
        profile["started_after_training_s"] = (t_profile - clock.epoch_end_ns[-1]) / 1e9
    spawn_ns = int(os.environ.get("TWINBENCH_SPAWN_NS", T_WORKER_NS))
    startup = {
        "process_start_s": (T_WORKER_NS - spawn_ns) / 1e9,
        "framework_import_s": (t_import - t0) / 1e9,
        "data_s": (t_data_end - t_data) / 1e9,
        "build_s": (t_train - t_build) / 1e9,
        # Includes Keras' graph tracing, XLA or torch.compile compilation when enabled.
        "first_step_s": step_ns[0][0] / 1e9,
        "first_step_over_steady_s": step_ns[0][0] / 1e9 - timing["steady_step_s"]["median"],
    }
    # From the parent's spawn to the end of the first step: what a user waits before training
    # runs at speed.
    # The peak probe is left out: it measures the machine, once per machine and cores (cached).
    startup["total_s"] = (clock.epoch_start_ns[0] - spawn_ns - probe_ns) / 1e9 + startup[
        "first_step_s"
    ]
    forward = getattr(models_module(spec.model), "forward_flops", None)
    flops_record = None
    if forward is not None:
        from models import flops

        products = getattr(models_module(spec.model), "flop_products", None)
        per_step = (
            flops.train_per_sample(products(**mc["arch"])) * bs
            if products is not None
            else flops.train_step(forward(**mc["arch"]), bs)
        )
        achieved = per_step / timing["steady_step_s"]["median"] / 1e9
        flops_record = {
            "per_step": per_step,
            "per_sample_forward": forward(**mc["arch"]),
            "counting": "per product (models/flops.py)" if products else "3x forward",
            "achieved_gflops": achieved,
            "peak_gflops": peak,
            "fraction_of_peak": achieved / peak if peak else None,
        }
        if machine:  # this framework's own GEMM beside the machine's best: the kernel library
            flops_record.update(peak_module.framework_ceiling(machine, runtime, achieved))

    samples_per_epoch = min(n_train, plan.steps_per_epoch * bs)
    train_times = clock.train_times_s()
    identity = failed.backend_identity(spec.backend)
    return ResultRecord(
        status="ok",
        run_key=spec.config.get("run_key"),
        repeat=spec.config.get("repeat", 0),
        repeats="auto" if spec.auto_repeats else spec.repeats,
        pair_id=spec.config.get("pair_id"),  # the runs it was interleaved with (launch.py)
        backend=spec.backend,
        **identity,
        model=spec.model,
        params=params,
        expected_params=mc.get("expected_params"),
        cpus=spec.cpus,
        threads_requested={"intra_op": spec.threads, "inter_op": spec.interop_threads},
        threads_actual={"intra_op": threads.intra_op, "inter_op": threads.inter_op},
        threads_verified_by=threads.verified_by,
        native_thread_pools=threads.native_pools,
        affinity=budget["affinity"],
        thread_env=budget["thread_env"],
        device=spec.device,
        settings=settings_in_effect,
        framework=backend.describe(),
        data={
            "dataset": data.name,
            **data.info,
            "n_train": n_train,
            "n_test": len(data.x_test),
        },
        epochs=spec.epochs,
        batch_size=bs,
        steps_per_epoch=plan.steps_per_epoch,
        epoch_times_s=clock.epoch_times_s(),
        train_times_s=train_times,
        samples_per_s=[samples_per_epoch / t for t in train_times],
        timing=timing,
        budget=budget_record(clock, spec, timing),
        steps_file=STEPS_FILE,
        startup=startup,
        flops=flops_record,
        machine_peak=machine,
        # The model's own products timed alone (best kernel each), outside the timed steps.
        speed_of_light=(
            sol_module.against(sol, runtime, timing["steady_step_s"]["median"]) if sol else None
        ),
        profile=profile,
        # Which kernels ran (MKL / oneDNN verbose logs), from a separate probe process.
        kernels=kernels.probe(run_dir) if spec.measure.get("kernel_probe") else None,
        resources=used,
        history={
            "loss": history.loss,
            "accuracy": history.accuracy,
            "val_loss": history.val_loss,
            "val_accuracy": history.val_accuracy,
        },
        parity=certificates.status(spec.model, backend=spec.backend),
        environment=environment.describe(),
        started=started,
        finished=environment.now_iso(),
        config=spec.config,
    ).to_json()


def machine_peak_record(
    spec: RunSpec, say: Callable[[str], None] | None = None
) -> dict[str, Any] | None:
    """twinbench.measure.peak's record for this machine and core count (CPU runs with the probe
    on)."""
    if not spec.measure.get("peak_probe", True) or spec.device != "cpu":
        return None
    cache = spec.measure.get("peak_cache_dir")
    return peak_module.machine_peak(
        environment.describe()["fingerprint"],
        len(spec.cores),
        size=int(spec.measure.get("peak_probe_size", 2048)),
        repeats=int(spec.measure.get("peak_probe_repeats", 7)),
        min_repeat_s=float(spec.measure.get("peak_probe_repeat_s", 0.2)),
        cache_dir=Path(cache) if cache else None,
        say=say,
    )


def models_module(name: str):
    import models

    return models.get(name)


def main(argv: list[str]) -> int:
    from twinbench.launch import lifeline

    lifeline.die_with_parent()
    run_dir = Path(argv[1])
    raw = results.read(run_dir / SPEC_FILE)
    try:
        record = run(spec_from_file(run_dir / SPEC_FILE), run_dir)
    except Exception as exc:  # recorded, never lost: the parent reports it as a failed run
        kind = "non_finite_loss" if isinstance(exc, NonFiniteLoss) else "exception"
        record = failed.failed_record(
            raw,
            f"{type(exc).__name__}: {exc}",
            error_kind=kind,
            traceback=traceback.format_exc(),
        )
        results.write_atomic(run_dir / results.RESULT_FILE, record)
        print(f"error: {record['error']}", file=sys.stderr, flush=True)
        return 1
    results.write_atomic(run_dir / results.RESULT_FILE, record)
    return 0
