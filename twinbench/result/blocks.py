"""The typed blocks of a result record: each JSON object result.json nests, its fields, their
types and units. Field order is the order the worker writes them in (twinbench/worker/assemble.py).

Key names that other modules spell out (run summaries, the analysis) are defined here once, as
constants checked against the fields they name (tests/test_record.py).
"""

# `spec` returns a dataclasses.field (block.py), which ruff cannot see through:
# ruff: noqa: RUF009
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from twinbench.result.block import ABSENT, Block, spec

# How a record's flag about subnormal floats begins (frameworks/subnormals.py writes it, the
# analysis tells flagged runs by it without importing a framework's module).
SUBNORMALS_FLAG = "subnormals:"
# ... and its flag about the steps' time in the kernel on page faults (frameworks/allocator.py).
PAGE_FAULTS_FLAG = "page faults:"
# The worker's headline measurement: Timing.steady_step_s (and the column named after it).
STEADY_STEP_S = "steady_step_s"
TIMING = "timing"
MEDIAN = "median"


@dataclass(frozen=True)
class Threads(Block):
    """A thread count per pool, as asked for (threads_requested) or read back from the
    framework (threads_actual)."""

    intra_op: int | None = spec("threads of one operation (GEMM, convolution)", "threads")
    inter_op: int | None = spec("operations run side by side", "threads")


@dataclass(frozen=True)
class Summary(Block):
    """A sample's summary (twinbench.stats.Summary): median with its distribution-free
    interval."""

    n: int = spec("values summarised", "count")
    median: float = spec("median of the values", "s")
    mean: float = spec("arithmetic mean", "s")
    stdev: float = spec("sample standard deviation", "s")
    min: float = spec("smallest value", "s")
    max: float = spec("largest value", "s")
    ci_low: float = spec("lower end of the median's interval", "s")
    ci_high: float = spec("upper end of the median's interval", "s")
    confidence: float = spec("the coverage the interval achieves (below 95% for n < 6)", "1")
    rel_ci_width: float = spec("interval width over the median", "1")
    unstable: bool = spec("rel_ci_width above measure.unstable_rel_width")
    batches: int = spec(
        "a run's steady step: the interval is over the medians of this many consecutive "
        "batches of its steps (measure.step_batches), so stretches of slow or fast steps widen "
        "it; absent: over the values themselves",
        "count",
    )


@dataclass(frozen=True)
class Drift(Block):
    """Whether steady steps got slower or faster over the run (twinbench.stats.drift)."""

    ratio_last_to_first_third: float = spec("median step of the last third over the first", "1")
    drifting: bool = spec("the ratio is further from 1 than the drift threshold")


@dataclass(frozen=True)
class Timing(Block):
    """Per-step timing from the run's clock: the steady state the verdicts compare."""

    epoch_s: Summary = spec("wall time per epoch, validation included", "s", Summary)
    steady_step_s: Summary | None = spec(
        "time per step, warm-up and epoch-first steps left out; None when no step lies past "
        "them (the record's flags say so)",
        "s",
        Summary,
    )
    steady_samples_per_s: float | None = spec(
        "batch size over the median steady step; None without a steady step", "samples/s"
    )
    steady_steps: int = spec("steps in the steady state", "steps")
    steps_per_tick: int = spec("steps per timed tick (Keras steps_per_execution)", "steps")
    warmup_steps: int = spec("first steps of the run left out (measure.warmup_steps)", "steps")
    drift: Drift | None = spec(
        "drift of the steady step over the run; None without a steady step", block=Drift
    )


@dataclass(frozen=True)
class Budget(Block):
    """Where the training time went (twinbench/result/budget.py): parts that add up to it."""

    train_time_s: float = spec("sum of the epochs' wall times", "s")
    parts_s: dict[str, float] = spec("time per part (budget.PARTS)", "s")
    shares: dict[str, float] = spec("each part over train_time_s", "1")
    steady_steps: int = spec("steady steps", "steps")
    steady_median_s: float | None = spec("median steady step; None without one", "s")
    unaccounted_s: float = spec("train_time_s minus the parts (near 0)", "s")


@dataclass(frozen=True)
class Startup(Block):
    """What a run costs before it trains at speed."""

    process_start_s: float = spec("from the parent's spawn to the worker's first line", "s")
    framework_import_s: float = spec("importing the framework adapter", "s")
    data_s: float = spec("loading the data set", "s")
    build_s: float = spec("building the model and its train plan", "s")
    train_setup_s: float = spec(
        "from the model built to its first step: the optimizer, the input pipeline, the "
        "framework's compile (a framework's first optimizer may import its compiler stack "
        "here); waits for a partner's turns left out",
        "s",
    )
    first_step_s: float = spec("the first step (tracing, compilation, cold caches)", "s")
    first_step_over_steady_s: float | None = spec(
        "first step minus the median steady step; None without a steady step", "s"
    )
    total_s: float = spec("spawn to the end of the first step, probes left out", "s")


@dataclass(frozen=True)
class Subnormals(Block):
    """Subnormal (denormal) floats in the trained state, counted from their bits after the last
    timed step (frameworks/subnormals.py): where a run's steps slowed as it trained, the evidence
    of whether its kernels were meeting them. Groups: parameters (the weights `params`
    counts), gradients (native torch keeps the last step's; Keras does not), optimizer_state,
    predictions (output probabilities on one training batch, in inference mode)."""

    values: dict[str, int] = spec("float values per group", "values")
    subnormal: dict[str, int] = spec("of which subnormal, per group", "values")
    share: dict[str, float] = spec("subnormal over values, per group (0 for an empty group)", "1")
    seconds: float = spec("the count's wall time, after training", "s")
    error: str = spec("why the count failed; the other fields are then absent")


@dataclass(frozen=True)
class Sample(Block):
    """Text a language model generated after training, timed apart (twinbench/worker/sample.py)."""

    tokens: int = spec("characters generated, one forward pass each", "tokens")
    seconds: float = spec("wall time of the whole generation", "s")
    tokens_per_s: float = spec("tokens over seconds", "tokens/s")
    first_call_s: float = spec("the untimed first forward pass before them (tracing)", "s")
    temperature: float = spec("the sampling temperature", "1")
    prompt: str = spec("the context it started from (the first validation window)")
    text: str = spec("what it generated")


@dataclass(frozen=True)
class Flops(Block):
    """Floating-point work per step (models/flops.py) and the rate the run achieved."""

    per_step: float = spec("FLOP of one training step", "FLOP")
    per_sample_forward: float = spec("FLOP of one sample's forward pass", "FLOP")
    counting: str = spec('"per product (models/flops.py)" or "3x forward"')
    achieved_gflops: float | None = spec(
        "per_step over the median steady step; None without a steady step", "GFLOP/s"
    )
    peak_gflops: float | None = spec("the machine's GEMM peak on the run's cores", "GFLOP/s")
    fraction_of_peak: float | None = spec("achieved over peak", "1")
    framework_gemm_gflops: float | None = spec("this framework's own GEMM rate", "GFLOP/s")
    framework_gemm_kernel: str | None = spec("the GEMM kernel that rate was timed with")
    fraction_of_framework_gemm: float | None = spec("achieved over the framework's GEMM", "1")
    kernel_library_effect: float | None = spec("framework GEMM over the machine's best", "1")
    peak_library: str | None = spec("the library with the machine's best GEMM")
    achieved_above_peak: bool = spec("achieved above the peak: the cached peak is too low")


@dataclass(frozen=True)
class MachinePeak(Block):
    """The machine's best float32 GEMM on the run's cores (twinbench/measure/peak.py)."""

    probe: dict[str, Any] = spec("the probe's settings (size, repeats, libraries)")
    fingerprint: str = spec("the machine it was measured on")
    cores: int = spec("cores it was measured on", "cores")
    libraries: dict[str, Any] = spec("each library's GEMM rate and kernel")
    machine_peak_gflops: float | None = spec("the best library's rate", "GFLOP/s")
    best_library: str | None = spec("the library that reached it")
    isa_limit: dict[str, Any] = spec("the ISA's theoretical limit (cores x clock x FLOP/cycle)")
    exceeds_isa_limit: bool = spec("the peak above the ISA limit (a misread clock)")
    measured: str = spec("when it was measured", "UTC ISO 8601")
    load_average: list[float] = spec("1, 5, 15-minute load when measured")
    shared_cores: dict[str, float] = spec(
        "libraries whose probe had less than measure.peak_probe_min_share of its cores, and "
        "their share (not empty: this peak was not cached)"
    )
    cached: bool = spec("read from the cache, not measured by this run")
    cache_file: str | None = spec("the cache file (delete it to measure again); None: not cached")


@dataclass(frozen=True)
class SpeedOfLight(Block):
    """The model's own products timed alone: a lower bound per step
    (twinbench/measure/speed_of_light.py), and the run's steady step against it."""

    probe: dict[str, Any] = spec("the probe's settings (model, batch, repeats, kernels)")
    fingerprint: str = spec("the machine it was measured on")
    cores: int = spec("cores it was measured on", "cores")
    libraries: dict[str, Any] = spec("each library's probe outcome")
    kernels: list[dict[str, Any]] = spec("every product of a step and its best time")
    sol_step_s: float | None = spec("the best kernels summed: the step's lower bound", "s")
    library_step_s: dict[str, float] = spec("the same sum in each library's kernels", "s")
    flop_per_step: float = spec("FLOP of the products", "FLOP")
    measured: str = spec("when it was measured", "UTC ISO 8601")
    load_average: list[float] = spec("1, 5, 15-minute load when measured")
    shared_cores: dict[str, float] = spec(
        "libraries whose kernels' probes had less than measure.peak_probe_min_share of their "
        "cores, and the least share (not empty: not cached)"
    )
    cached: bool = spec("read from the cache, not measured by this run")
    cache_file: str | None = spec("the cache file (delete it to measure again); None: not cached")
    steady_step_s: float = spec("the run's median steady step", "s")
    fraction_of_speed_of_light: float | None = spec("sol_step_s over the steady step", "1")
    framework_sol_step_s: float | None = spec("the lower bound in this framework's kernels", "s")
    fraction_of_framework_sol: float | None = spec("that bound over the steady step", "1")
    above_speed_of_light: bool = spec("a step faster than its bound: measured under load")


@dataclass(frozen=True)
class Resources(Block):
    """Memory and CPU the run used (twinbench/worker/resources.py)."""

    peak_rss_mib: float = spec("high-water mark of resident memory", "MiB")
    cpu_time_s: float = spec("user + system CPU time of the whole process", "s")
    cpu_time_training_s: float = spec("CPU time over the epochs, validation included", "s")
    cpu_time_training_steps_s: float = spec(
        "CPU time over the epochs' training parts, validation left out (train_times_s)", "s"
    )
    busy_cores_training: float | None = spec("CPU seconds per wall second in training", "cores")
    system_time_training_steps_s: float = spec(
        "of cpu_time_training_steps_s, the time in the kernel (page faults, mostly)", "s"
    )
    minor_faults_training_steps: int = spec(
        "minor page faults over the training parts: fresh memory touched", "faults"
    )


@dataclass(frozen=True)
class Data(Block):
    """The data set the run trained on (benchdata), with its loader's own info."""

    dataset: str = spec("data set name (conf/model `dataset`)")
    source: str = spec("synthetic or real (conf/data)")
    n_train: int = spec("training samples", "samples")
    n_test: int = spec("validation samples", "samples")


@dataclass(frozen=True)
class History(Block):
    """Loss and accuracy per epoch; validation null on epochs without it (validate_every)."""

    loss: list[float] = spec("training loss per epoch")
    accuracy: list[float] = spec("training accuracy per epoch", "1")
    val_loss: list[float | None] = spec("validation loss per epoch")
    val_accuracy: list[float | None] = spec("validation accuracy per epoch", "1")
    loop: list[dict[str, Any]] = spec(
        "per epoch, what the loop fed and scored (frameworks/loop_print.py): batch_order_sha256, "
        "first_batch_sha256 (before augmentation), train_samples, val_samples, "
        "partial_batch_weighting; compared across a sweep's backends (analysis/compute/loops.py)",
        default=ABSENT,
    )


@dataclass(frozen=True)
class Parity(Block):
    """The model's equivalence certificate on this backend (twinbench/parity)."""

    status: str = spec('"pass", "fail", "stale" or "not checked"')
    changed_since: dict[str, Any] = spec("what changed since the certificate (stale only)")
    certificate: str = spec("the certificate's path (shown, never opened by the analysis)")
    checked: str = spec("when it was certified", "UTC ISO 8601")
    forward_max_abs_diff: float = spec("largest forward-pass difference certified")
    fingerprint: dict[str, Any] = spec("code, config and versions the verdict depends on")
    command: str = spec("the command that certifies it")
    stack: str = spec("a stack (conf/stack/) that has no certificate of its own yet")


@dataclass(frozen=True)
class Environment(Block):
    """The machine the run measured on (twinbench/machine/environment.py)."""

    hostname: str = spec("host name")
    platform: str = spec("operating system and kernel")
    python: str = spec("Python version")
    cpu_model: str | None = spec("CPU model name")
    cpu_id: str | None = spec("CPU family and model (x86) or implementer and part (Arm)")
    isa_flags: list[str] = spec("vector ISA flags that matter to kernels")
    logical_cores: int = spec("logical cores of the machine", "cores")
    physical_cores: int | None = spec("physical cores of the machine", "cores")
    allowed_cores: list[int] = spec("cores this process may run on")
    cgroup_cpu_quota: float | None = spec("the cgroup's CPU quota", "cores")
    memory_gib: float = spec("total memory", "GiB")
    load_average: list[float] = spec("1, 5, 15-minute load at the run")
    machine_state: dict[str, Any] = spec("huge pages, governor, allocator")
    slurm: dict[str, Any] | None = spec("the Slurm job, None outside Slurm")
    fingerprint: str = spec("the machine's identity in reports")
