"""The worker's phases before its record, in the order twinbench/worker/main.py `run` calls them:
pin, data, probes, import, train, profile. Each takes what the earlier ones produced and
returns what it measured as a small frozen record (Loaded, Probes, Framework, Trained, Looks),
which the last phase (twinbench/worker/assemble.py) turns into result.json.

The order is the worker's point: the CPU budget (affinity, thread variables) is in place before
anything starts a thread pool, the data is read before the framework loads (numpy only, so a
missing or corrupt file fails cheaply), the machine's probes run in their own processes before
the framework import, and every look after training (profile, kernels) comes after the last
timed step.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from twinbench.config.spec import RunSpec
from twinbench.machine import environment
from twinbench.measure import kernels
from twinbench.measure import peak as peak_module
from twinbench.measure import speed_of_light as sol_module
from twinbench.result import results
from twinbench.ui import progress
from twinbench.worker import resources
from twinbench.worker.pinning import apply_cpu_budget

STEPS_FILE = "steps.json"
# conf/config.yaml's defaults, for a spec whose `measure` block leaves a key out
WARMUP_STEPS = 10
PEAK_PROBE_SIZE = 2048
PEAK_PROBE_REPEATS = 7
PEAK_PROBE_REPEAT_S = 0.2
PEAK_PROBE_SECONDS = 1.0
PROFILE_STEPS = 10
PROFILE_WARMUP_STEPS = 3
NS_PER_S = 1e9


class NonFiniteLoss(FloatingPointError):
    pass


def seconds(start_ns: int, end_ns: int) -> float:
    return (end_ns - start_ns) / NS_PER_S


def pin(spec: RunSpec) -> dict[str, Any]:
    """Phase 1: affinity and thread variables, before any framework import (pinning.py)."""
    return apply_cpu_budget(spec)


@dataclass(frozen=True)
class Loaded:
    """The data phase: the data set, the model config completed by it, and its load time."""

    data: Any  # benchdata.Dataset
    model_cfg: dict[str, Any]
    data_s: float


def synthetic_cache_dir(measure: dict[str, Any]) -> Path | None:
    """Where synthetic data sets are kept between runs (measure.data_cache, data_cache_dir),
    or None when they are made in every run."""
    from benchdata.cache import default_dir

    if not measure.get("data_cache", True):
        return None
    folder = measure.get("data_cache_dir")
    return Path(folder).expanduser() if folder else default_dir()


def load_data(spec: RunSpec, label: str) -> Loaded:
    """Phase 2: numpy only, so a missing or corrupt file fails before the framework loads."""
    from benchdata import download, fill_arch, holdout, load

    progress.status(f"[{label}] data: {spec.model_cfg['dataset']} ({spec.data['source']})...")
    download.transfer_progress = progress.transfer_sender(label)  # drawn by the parent
    t_data = time.perf_counter_ns()
    mc = spec.model_cfg
    data = load(
        mc["dataset"], spec.data["source"], spec.seed, mc.get("view"), spec.data,
        synthetic_cache=synthetic_cache_dir(spec.measure),
    )  # fmt: skip
    data = holdout.apply(data, mc)  # TensorLayer's validation split (benchdata/holdout.py)
    mc = fill_arch(mc, data)  # sizes only the data knows (fastText's bigram vocabulary)
    return Loaded(data, mc, seconds(t_data, time.perf_counter_ns()))


@dataclass(frozen=True)
class Probes:
    """The probes phase: the machine's GEMM peak and the model's speed of light (each cached
    per machine and cores), and how long they took (left out of the start-up total)."""

    machine: dict[str, Any] | None
    sol: dict[str, Any] | None
    probe_ns: int
    # A bfloat16 run's float32 peak on the same cores, beside its own (bf16_evidence.gemm_flag)
    machine_float32: dict[str, Any] | None = None

    @property
    def peak_gflops(self) -> float | None:
        if self.machine and self.machine.get("machine_peak_gflops"):
            return self.machine["machine_peak_gflops"]
        return None


def run_probes(spec: RunSpec, label: str, mc: dict[str, Any]) -> Probes:
    """Phase 3: separate processes, before the framework import."""
    t_probe = time.perf_counter_ns()
    if spec.measure.get("peak_probe", True) and spec.device != "cuda":
        progress.status(
            f"[{label}] the machine's GEMM peak on these cores (measured once, then cached)..."
        )

    def say(text: str) -> None:
        progress.status(f"[{label}] {text}")

    machine = machine_peak_record(spec, say=say)
    float32 = None
    if machine is not None and spec.precision != "float32":
        float32 = machine_peak_record(spec, say=say, precision="float32")
    if spec.measure.get("speed_of_light", False) and spec.device == "cpu":
        progress.status(f"[{label}] the model's products alone: speed of light (cached)...")
    sol = sol_module.for_run(spec, mc["arch"], environment.describe()["fingerprint"])
    return Probes(machine, sol, time.perf_counter_ns() - t_probe, float32)


def machine_peak_record(
    spec: RunSpec, say: Callable[[str], None] | None = None, precision: str | None = None
) -> dict[str, Any] | None:
    """twinbench.measure.peak's record for this machine and core count (CPU runs with the probe
    on), in the run's precision unless `precision` names another."""
    if not spec.measure.get("peak_probe", True) or spec.device != "cpu":
        return None
    cache = spec.measure.get("peak_cache_dir")
    precision = precision or spec.precision
    size_key = "peak_probe_size" if precision == "float32" else "peak_probe_bf16_size"
    return peak_module.machine_peak(
        environment.describe()["fingerprint"],
        len(spec.cores),
        precision=precision,
        size=int(spec.measure.get(size_key, PEAK_PROBE_SIZE)),
        repeats=int(spec.measure.get("peak_probe_repeats", PEAK_PROBE_REPEATS)),
        min_repeat_s=float(spec.measure.get("peak_probe_repeat_s", PEAK_PROBE_REPEAT_S)),
        min_share=float(spec.measure.get("peak_probe_min_share", peak_module.MIN_CORE_SHARE)),
        cache_dir=Path(cache) if cache else None,
        say=say,
    )


@dataclass(frozen=True)
class Framework:
    """The import phase: the adapter with its threads read back, and the import's time."""

    backend: Any  # frameworks.base.Backend
    threads: Any  # frameworks.base.Threads, as the framework reports them
    import_s: float
    peak_gflops: float | None  # the machine's CPU peak, or the GPU's own matmul


def import_framework(spec: RunSpec, label: str, cpu_peak: float | None) -> Framework:
    """Phase 4: import exactly one framework, apply its thread and software settings, read the
    threads back, check the device, seed; a GPU run times its own matmul peak here."""
    from frameworks import get_backend
    from frameworks.settings import settings_of

    progress.status(f"[{label}] importing {spec.backend}...")
    t0 = time.perf_counter_ns()
    backend = get_backend(spec.backend)  # the framework import happens here
    import_s = seconds(t0, time.perf_counter_ns())
    threads = backend.configure_threads(spec.threads, spec.interop_threads)
    backend.apply_settings(settings_of(spec.backend_cfg))
    backend.set_precision(spec.precision)
    backend.check_device(spec.device)
    backend.seed(spec.seed)
    peak = cpu_peak
    if spec.measure.get("peak_probe", True) and spec.device == "cuda":
        progress.status(f"[{label}] measuring the matmul peak with these threads...")
        peak = backend.matmul_gflops(
            int(spec.measure.get("peak_probe_size", PEAK_PROBE_SIZE)),
            float(spec.measure.get("peak_probe_seconds", PEAK_PROBE_SECONDS)),
            spec.device,
        )
    return Framework(backend, threads, import_s, peak)


@dataclass(frozen=True)
class Trained:
    """The train phase: the model, its plan and clock, and what training cost."""

    model: Any
    params: int
    plan: Any  # frameworks.base.TrainPlan
    clock: Any  # frameworks.timing.RunClock
    history: Any  # frameworks.base.History
    build_s: float
    built_ns: int  # perf_counter_ns when the model was built: train set-up runs from here
    resources: dict[str, Any]
    settings_in_effect: dict[str, Any]
    device_info: dict[str, Any] | None = None  # the GPU's block (Backend.device_report)


def train(spec: RunSpec, label: str, fw: Framework, loaded: Loaded, run_dir: Path) -> Trained:
    """Phase 5: plan, build and train under the run clock; every step's time goes to
    steps.json beside the record."""
    from benchdata import batching
    from frameworks import allocator, turns
    from frameworks.base import TrainPlan
    from frameworks.timing import RunClock

    mc, data, backend = loaded.model_cfg, loaded.data, fw.backend
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
    built_ns = time.perf_counter_ns()
    build_s = seconds(t_build, built_ns)

    # In a pair that takes turns (a deciding sweep's `pairing: turns`) the clock hands the turn
    # over between blocks of steps and leaves the waits out of every time it takes.
    clock = RunClock(turns=turns.from_environment())
    progress.status(f"[{label}] training: first steps include tracing and warm-up...")
    # A separate thread reads the clock once a second: nothing is added to the timed steps.
    backend.device_begin(spec.device)  # a GPU's memory peak counts from here
    with progress.EpochProgress(clock, label, spec.epochs, plan.steps_per_epoch):
        history = backend.train(model, mc, data, plan, clock, progress=_on_epoch(spec, clock))
    clock.training_end()  # what follows (probes, the record) never runs beside a partner's steps

    used = resources.usage(clock)  # CPU time over the epochs' own spans
    # Framework-neutral, beside the backend's own: glibc's malloc as it served the steps.
    memory = allocator.in_effect(spec.backend_cfg.get("allocator"))
    allocator.check(memory)
    settings_in_effect = {**backend.settings_report(), "allocator": memory}
    results.write_atomic(run_dir / STEPS_FILE, {"unit": "ns", "per_epoch": clock.step_times_ns()})
    device_info = backend.device_report(spec.device)
    return Trained(
        model,
        params,
        plan,
        clock,
        history,
        build_s,
        built_ns,
        used,
        settings_in_effect,
        device_info,
    )


def _on_epoch(spec: RunSpec, clock):
    """Progress on the terminal, and a stop for a loss that is no longer a number."""

    def on_epoch(epoch: int, history) -> None:
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

    return on_epoch


@dataclass(frozen=True)
class Looks:
    """The profile phase: looks taken after the timed steps, each None when not asked for."""

    profile: dict[str, Any] | None
    kernels: dict[str, Any] | None
    sample: dict[str, Any] | None = None  # text generated after training (conf/model `sample`)
    attention: dict[str, Any] | None = None  # the attention path and kernel that ran (transformers)
    subnormals: dict[str, Any] | None = None  # subnormal floats in the trained state


def profile(spec: RunSpec, fw: Framework, loaded: Loaded, trained: Trained, run_dir: Path) -> Looks:
    """Phase 6: the per-layer profile (profile=true) and the kernel probe
    (measure.kernel_probe, a separate process), both after the last timed step."""
    found = None
    if spec.config.get("profile"):  # after the timed steps: the profiler never touches them
        from frameworks import profiling

        clock = trained.clock
        t_profile = clock.now()
        found = profiling.profile(
            fw.backend, trained.model, loaded.model_cfg, loaded.data, trained.plan,
            steps=int(spec.measure.get("profile_steps", PROFILE_STEPS)),
            warmup=int(spec.measure.get("profile_warmup_steps", PROFILE_WARMUP_STEPS)),
        )  # fmt: skip
        # Evidence, on the run's own clock, that the profiler started after the last timed step.
        found["started_after_training_s"] = seconds(clock.epoch_end_ns[-1], t_profile)
    # Which kernels ran (MKL / oneDNN verbose logs), from a separate probe process.
    probed = None
    if spec.measure.get("kernel_probe"):
        probed = kernels.probe(
            run_dir,
            timeout_s=float(spec.measure["kernel_probe_timeout_s"]),
            precision=spec.precision,
        )
    return Looks(
        found,
        probed,
        sample_text(spec, fw, loaded, trained),
        attention(loaded, trained),
        subnormals(spec, fw, loaded, trained),
    )


def subnormals(spec: RunSpec, fw: Framework, loaded: Loaded, trained: Trained) -> dict[str, Any]:
    """How many of the trained weights, gradients, optimizer state and one training batch's
    predictions are subnormal (frameworks/subnormals.py): the evidence beside a run whose steps
    slowed down as it trained. After training_end: never beside a partner's steps."""
    from frameworks import subnormals as probe

    # Native torch keeps its optimizer in the adapter; a Keras model carries its own.
    optimizer_of = getattr(fw.backend, "optimizer_and_schedule", None)
    batch = loaded.data.x_train[: trained.plan.batch_size]
    return probe.measured(
        trained.model,
        optimizer_of()[0] if optimizer_of else None,
        lambda: fw.backend.predict(trained.model, spec.model, batch),
    )


def attention(loaded: Loaded, trained: Trained) -> dict[str, Any] | None:
    """What attention path and kernel the framework took for the setting asked (None for a
    model without one): a setting is a request, and Keras overrules it under dropout."""
    from frameworks import attention_probe

    return attention_probe.ran(trained.model, loaded.model_cfg, trained.plan.batch_size)


def sample_text(spec: RunSpec, fw: Framework, loaded: Loaded, trained: Trained):
    """A language model's text after training, timed apart (worker/sample.py); None for a
    model without a `sample` section. Last: its inference-mode passes touch nothing timed."""
    settings = loaded.model_cfg.get("sample")
    if not settings:
        return None
    from twinbench.worker.sample import sample

    data = loaded.data
    found = sample(
        fw.backend, trained.model, spec.model, data.x_test[:1], data.info["vocabulary"],
        settings, spec.seed,
    )  # fmt: skip
    print(
        f"  [{spec.backend} {spec.model} cpus={spec.cpus}] sample: {found['tokens']} characters "
        f"at {found['tokens_per_s']:.1f}/s: {found['text']!r}",
        flush=True,
    )
    return found
