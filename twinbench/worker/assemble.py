"""The worker's last phase: the measured run's record, from what the earlier phases produced
(twinbench/worker/phases.py), through ResultRecord.ok, the one constructor a failed run shares
(twinbench/launch/failed.py). Nothing here touches the framework's timed steps: it computes
from the run clock and reads the adapter's descriptions.
"""

from __future__ import annotations

import os
from typing import Any

from twinbench import stats
from twinbench.config.spec import RunSpec
from twinbench.launch import failed
from twinbench.machine import environment
from twinbench.measure import bf16_evidence
from twinbench.measure import peak as peak_module
from twinbench.measure import speed_of_light as sol_module
from twinbench.parity import certificates
from twinbench.result import budget
from twinbench.result.blocks import Budget, Drift, Flops, Startup, Summary, Threads, Timing
from twinbench.result.record import ResultRecord
from twinbench.ui import progress
from twinbench.worker.phases import (
    NS_PER_S,
    STEPS_FILE,
    WARMUP_STEPS,
    Framework,
    Loaded,
    Looks,
    Probes,
    Trained,
)

GFLOP = 1e9


def warmup_steps(spec: RunSpec) -> int:
    return int(spec.measure.get("warmup_steps", WARMUP_STEPS))


def timing_record(clock, spec: RunSpec, batch_size: int) -> Timing:
    # batch_size: the samples one steady step holds (samples_per_step, never more than the data)
    width = spec.measure.get("unstable_rel_width", stats.UNSTABLE_REL_WIDTH)
    # A tick is one step, or steps_per_execution steps under Keras: report per step.
    per_tick = clock.steps_per_tick
    steps = [[ns // per_tick for ns in epoch] for epoch in clock.step_times_ns()]
    warmup_ticks = -(-warmup_steps(spec) // per_tick)
    steady = stats.steady_steps(steps, warmup_ticks)
    epoch_s = Summary.parse(
        stats.summarize(clock.epoch_times_s(), unstable_rel_width=width).as_dict()
    )
    if not steady:
        # Every step lies in the warm-up or opens an epoch. This once fell back to those very
        # steps and recorded them as "steady" beside warmup_steps=10 (issue 45): no figure now,
        # and the record's flags say why (run_flags).
        return Timing(
            epoch_s=epoch_s,
            steady_step_s=None,
            steady_samples_per_s=None,
            steady_steps=0,
            steps_per_tick=per_tick,
            warmup_steps=warmup_steps(spec),
            drift=None,
        )
    batches = spec.measure.get("step_batches", stats.STEP_BATCHES)
    step_summary = stats.summarize_series(steady, batches, unstable_rel_width=width)
    return Timing(
        epoch_s=epoch_s,
        steady_step_s=Summary.parse(step_summary.as_dict()),
        steady_samples_per_s=batch_size / step_summary.median,
        steady_steps=len(steady) * per_tick,
        steps_per_tick=per_tick,
        warmup_steps=warmup_steps(spec),
        drift=Drift.parse(stats.drift(steady)),
    )


def run_flags(
    spec: RunSpec,
    timing: Timing | None = None,
    steps_per_epoch: int | None = None,
    trained_state: tuple[dict[str, Any] | None, dict[str, Any]] = (None, {}),
    used: dict[str, Any] | None = None,
    probes: Probes | None = None,
) -> list[str]:
    """What qualifies this run's figures, one line each (the record's `flags`).
    trained_state: the run's `subnormals` block and the settings in effect; used: its
    resources (CPU time in the kernel, page faults); probes: the machine's GEMM peaks."""
    from frameworks import allocator, registry, subnormals

    no_steady = timing is not None and timing.steady_step_s is None
    share = float(spec.measure.get("subnormal_flag_share", subnormals.FLAG_SHARE))
    in_kernel = float(spec.measure.get("kernel_share_flag", allocator.FLAG_SHARE))
    lines = (
        spec.oversubscribed(),
        no_steady_state(spec, timing, steps_per_epoch) if no_steady else None,
        subnormals.flag(*trained_state, share, _slowed(timing)),
        allocator.flag(
            used or {},
            trained_state[1].get("allocator"),
            in_kernel,
            registry.spec(spec.backend).faults_step_buffers,
        ),
        bf16_evidence.gemm_flag(probes.machine, probes.machine_float32, runtime(spec))
        if probes is not None
        else None,
    )
    return [line for line in lines if line]


def _slowed(timing: Timing | None) -> float | None:
    """The drift ratio of a run whose steady steps drifted, else None."""
    drift = Drift.typed(timing.drift) if timing is not None else None
    if drift is None or drift.drifting is not True:
        return None
    return float(drift.ratio_last_to_first_third)


def no_steady_state(spec: RunSpec, timing: Timing, steps_per_epoch: int | None = None) -> str:
    """The flag of a run too short for its warm-up, with what would leave a steady step.

    steps_per_epoch: the steps each epoch ran (the run's plan). Fewer than max_steps when the
    data ran out first, and then a larger max_steps changes nothing: more epochs do. One tick
    per epoch is never steady at any length (an epoch's first step is left out): a batch as
    large as the training set, say."""
    warmup, per_tick = warmup_steps(spec), timing.steps_per_tick
    head = (
        f"no steady state: every step of the run lies in its warm-up (measure.warmup_steps="
        f"{warmup}) or opens an epoch, so no steady figure was recorded; "
    )
    if steps_per_epoch is not None and -(-steps_per_epoch // per_tick) < 2:
        return head + (
            f"each epoch is {steps_per_epoch} step(s) timed as one, and an epoch's first is never "
            "steady: more steps per epoch (a smaller model.batch_size) would leave one"
        )
    if steps_per_epoch is not None and (spec.max_steps is None or steps_per_epoch < spec.max_steps):
        epochs = shortest_steady_epochs(steps_per_epoch, warmup, per_tick)
        return head + (
            f"the data holds {steps_per_epoch} steps per epoch, so epochs={epochs} would leave "
            "one, or lower measure.warmup_steps"
        )
    return head + (
        f"max_steps={shortest_steady_run(spec.epochs, warmup, per_tick)} at "
        f"epochs={spec.epochs} would leave one, or lower measure.warmup_steps"
    )


def shortest_steady_run(epochs: int, warmup: int, per_tick: int = 1) -> int:
    """The smallest max_steps whose run (`epochs` epochs) has a step past the warm-up that
    does not open an epoch (stats.steady_steps' rule, in ticks as the clock counts them)."""
    warmup_ticks = -(-warmup // per_tick)
    ticks = 2  # one tick opens the epoch and is never steady
    while not stats.steady_steps([[1] * ticks] * epochs, warmup_ticks):
        ticks += 1
    return ticks * per_tick


def shortest_steady_epochs(steps_per_epoch: int, warmup: int, per_tick: int = 1) -> int:
    """The fewest epochs of `steps_per_epoch` steps (at least 2 ticks each) that leave a steady
    step (stats.steady_steps' rule)."""
    warmup_ticks, ticks = -(-warmup // per_tick), -(-steps_per_epoch // per_tick)
    epochs = 1
    while not stats.steady_steps([[1] * ticks] * epochs, warmup_ticks):
        epochs += 1
    return epochs


def steady_median(timing: Timing) -> float | None:
    return None if timing.steady_step_s is None else timing.steady_step_s.median


def budget_record(clock, spec: RunSpec, timing: Timing) -> Budget:
    return Budget.parse(budget.from_clock(clock, warmup_steps(spec), steady_median(timing)))


def startup_record(
    worker_ns: int, timing: Timing, loaded: Loaded, probes: Probes, fw: Framework, trained: Trained
) -> Startup:
    """What the run cost before it trained at speed, from the parent's spawn (its environment
    variable; the worker's own first clock reading when started by hand)."""
    spawn_ns = int(os.environ.get("TWINBENCH_SPAWN_NS", worker_ns))
    clock = trained.clock
    first_step_s = clock.step_times_ns()[0][0] / NS_PER_S
    # From the parent's spawn to the end of the first step: what a user waits before training
    # runs at speed. The peak probe is left out: it measures the machine, once per machine and
    # cores (cached).
    total_s = (clock.epoch_start_ns[0] - spawn_ns - probes.probe_ns) / NS_PER_S + first_step_s
    return Startup(
        process_start_s=(worker_ns - spawn_ns) / NS_PER_S,
        framework_import_s=fw.import_s,
        data_s=loaded.data_s,
        build_s=trained.build_s,
        train_setup_s=(clock.epoch_start_ns[0] - trained.built_ns) / NS_PER_S,
        # Includes Keras' graph tracing, XLA or torch.compile compilation when enabled.
        first_step_s=first_step_s,
        first_step_over_steady_s=(
            None if timing.steady_step_s is None else first_step_s - timing.steady_step_s.median
        ),
        total_s=total_s,  # the report's start-up chart shows the rest as "other"
    )


def flops_record(
    spec: RunSpec,
    mc: dict[str, Any],
    timing: Timing,
    probes: Probes,
    peak: float | None,
    samples_per_step: int,
) -> Flops | None:
    """FLOP per step by the model's rule (models/flops.py) and the rate achieved; None for a
    model without one."""
    module = models_module(spec.model)
    forward = getattr(module, "forward_flops", None)
    if forward is None:
        return None
    from models import flops

    bs = samples_per_step
    products = getattr(module, "flop_products", None)
    per_step = (
        flops.train_per_sample(products(**mc["arch"])) * bs
        if products is not None
        else flops.train_step(forward(**mc["arch"]), bs)
    )
    steady_s = steady_median(timing)
    achieved = None if steady_s is None else per_step / steady_s / GFLOP
    record = {
        "per_step": per_step,
        "per_sample_forward": forward(**mc["arch"]),
        "counting": "per product (models/flops.py)" if products else "3x forward",
        "achieved_gflops": achieved,
        "peak_gflops": peak,
        "fraction_of_peak": achieved / peak if peak and achieved is not None else None,
    }
    if (
        probes.machine and achieved is not None
    ):  # this framework's own GEMM beside the machine's best: the kernel library
        record.update(peak_module.framework_ceiling(probes.machine, runtime(spec), achieved))
    return Flops.parse(record)


def parity_status(spec: RunSpec) -> dict[str, Any]:
    """The model's certificate as this run records it; an invalid one says so in one line with
    the command that re-certifies, and never costs the measurement."""
    stack = spec.config.get("stack")
    found = certificates.status(spec.model, backend=spec.backend, stack=stack)
    if found.get("stack"):  # a release without a certificate: the run is not proven equal
        progress.status(
            f"parity: stack {found['stack']} has no certificate for {spec.model} on "
            f"{spec.backend}; certify it: {found['command']}"
        )
    if found["status"] == "invalid":
        progress.status(
            f"parity: certificate {found['certificate']} is invalid ({found['reason']}); "
            f"{found['advice']}"
        )
    return found


def samples_per_step(batch_size: int, n_train: int) -> int:
    """What one step trains on: a batch, or the whole training set when the batch asks for more.
    Throughput and FLOPs once counted the batch asked for, and a batch of 100,000 on MNIST's
    60,000 samples read 1.67 times too fast (issue 28)."""
    return min(batch_size, n_train)


def runtime(spec: RunSpec) -> str:
    """The library whose kernels run this backend: its GEMM and speed of light are the ones
    probed under that library's name (frameworks/probes)."""
    return failed.backend_identity(spec.backend).get("backend_runtime", spec.backend)


def models_module(name: str):
    import models

    return models.get(name)


def assemble(
    spec: RunSpec,
    started: str,
    worker_ns: int,
    pinned: dict[str, Any],
    loaded: Loaded,
    probes: Probes,
    fw: Framework,
    trained: Trained,
    looks: Looks,
    stack: dict[str, Any] | None = None,
) -> ResultRecord:
    """Phase 7: the measured run's record; `stack` is the stack's block as the worker read it
    back (twinbench/stacks/readback.py)."""
    from frameworks import registry  # the registry only: no framework's import

    clock, data, bs = trained.clock, loaded.data, spec.batch_size
    n_train = len(data.x_train)
    timing = timing_record(clock, spec, samples_per_step(bs, n_train))
    steady_s = steady_median(timing)
    samples_per_epoch = min(n_train, trained.plan.steps_per_epoch * bs)
    train_times = clock.train_times_s()
    history = trained.history
    return ResultRecord.ok(
        run_key=spec.config.get("run_key"),
        repeat=spec.config.get("repeat", 0),
        repeats="auto" if spec.auto_repeats else spec.repeats,
        pair_id=spec.config.get("pair_id"),  # the runs it was interleaved with (launch.py)
        backend=spec.backend,
        **failed.backend_identity(spec.backend),
        model=spec.model,
        params=trained.params,
        expected_params=loaded.model_cfg.get("expected_params"),
        cpus=spec.cpus,
        threads_requested=Threads(intra_op=spec.threads, inter_op=spec.interop_threads),
        threads_actual=Threads(intra_op=fw.threads.intra_op, inter_op=fw.threads.inter_op),
        threads_verified_by=fw.threads.verified_by,
        native_thread_pools=fw.threads.native_pools,
        affinity=pinned["affinity"],
        thread_env=pinned["thread_env"],
        device=spec.device,
        device_info=trained.device_info,
        settings=trained.settings_in_effect,
        framework={**fw.backend.describe(), "runtimes_in_process": registry.loaded_runtimes()},
        data={"dataset": data.name, **data.info, "n_train": n_train, "n_test": len(data.x_test)},
        epochs=spec.epochs,
        batch_size=bs,
        steps_per_epoch=trained.plan.steps_per_epoch,
        epoch_times_s=clock.epoch_times_s(),
        train_times_s=train_times,
        samples_per_s=[samples_per_epoch / t for t in train_times],
        timing=timing,
        budget=budget_record(clock, spec, timing),
        steps_file=STEPS_FILE,
        startup=startup_record(worker_ns, timing, loaded, probes, fw, trained),
        flops=flops_record(
            spec, loaded.model_cfg, timing, probes, fw.peak_gflops, samples_per_step(bs, n_train)
        ),
        machine_peak=probes.machine,
        # The model's own products timed alone (best kernel each), outside the timed steps.
        speed_of_light=(
            sol_module.against(probes.sol, runtime(spec), steady_s)
            if probes.sol and steady_s is not None
            else None
        ),
        profile=looks.profile,
        kernels=looks.kernels,
        sample=looks.sample,
        attention=looks.attention,
        subnormals=looks.subnormals,
        resources=trained.resources,
        turns=trained.clock.turns.summary() if trained.clock.turns else None,
        history={
            "loss": history.loss,
            "accuracy": history.accuracy,
            "val_loss": history.val_loss,
            "val_accuracy": history.val_accuracy,
            "loop": history.loop,
        },
        parity=parity_status(spec),
        environment=environment.describe(),
        **({"stack": stack} if stack is not None else {}),
        started=started,
        finished=environment.now_iso(),
        config=spec.config,
        **(
            {"flags": flags}
            if (
                flags := run_flags(
                    spec,
                    timing,
                    trained.plan.steps_per_epoch,
                    (looks.subnormals, trained.settings_in_effect),
                    trained.resources,
                    probes,
                )
            )
            else {}
        ),
    )
