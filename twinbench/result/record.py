"""The result record of one run (result.json): its one definition, its schema history, and the
way in (`from_json`) and out (`to_json`) for every writer and reader.

Every writer goes through `ResultRecord.build`: the worker's assemble phase with
`ResultRecord.ok(...)`, twinbench.launch.failed.failed_record with `ResultRecord.failed(...)`;
analysis/load/records.py reads every file with `from_json`. The nested objects are typed blocks
(twinbench/result/blocks.py); `python -m twinbench.result.schema_doc` documents them all in
docs/reference/result-schema.md. A key this class or a block does not declare (a newer writer's,
or a one-off such as a probe's note) is kept in `extra` and written back, never dropped.

A field left at ABSENT is not written: a failed run says what it knows and no more, and a field
set to None is written as null (e.g. "no profile was taken").
"""

# `spec` returns a dataclasses.field (block.py), which ruff cannot see through:
# ruff: noqa: RUF009
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar

from twinbench.result.block import ABSENT, Block, spec
from twinbench.result.blocks import (
    Budget,
    Data,
    Environment,
    Flops,
    History,
    MachinePeak,
    Parity,
    Resources,
    Sample,
    SpeedOfLight,
    Startup,
    Subnormals,
    Threads,
    Timing,
)

__all__ = [
    "ABSENT",
    "SCHEMA_HISTORY",
    "SCHEMA_VERSION",
    "STABLE_KEYS",
    "NotARecord",
    "ResultRecord",
]

SCHEMA_VERSION = 2
# What each version changed; `from_json` reads every version listed here.
SCHEMA_HISTORY: dict[int, str] = {
    1: "The first schema: status, backend, model, params, cpus, threads requested and actual, "
    "device, epoch times (the stable keys), and the optional timing, startup, flops, settings, "
    "run_key, repeat ... blocks later work added without a version change (readers tolerate "
    "their absence).",
    2: "backend_api, backend_runtime, backend_label: the backend's model API, runtime and "
    "report label (frameworks/registry.py), so the analysis splits a framework gap into the "
    "API's and the runtime's effect from the record alone. Version-1 records lack them: "
    "analysis/load/backends.py `identity` falls back to the registry, then to the backend's name. "
    "Also (tolerated when absent): pair_id, the interleaved round a run belongs to, and "
    'repeats may be "auto".',
}


# Top-level keys that tools rely on: every record has them, and they are never renamed.
STABLE_KEYS = (
    "status",
    "backend",
    "model",
    "params",
    "cpus",
    "threads_requested",
    "threads_actual",
    "device",
    "epoch_times_s",
)


class UnknownSchemaVersion(ValueError):
    """A record of a version this code cannot read (newer, or no version at all)."""

    def __init__(self, version: Any) -> None:
        super().__init__(
            f"unknown schema_version {version!r}; this twinbench reads versions "
            f"{', '.join(map(str, SCHEMA_HISTORY))} (update twinbench to read newer records)"
        )
        self.version = version


class NotARecord(ValueError):
    """A JSON object with none of the keys every twinbench record holds: another tool's file that
    happens to be named result.json. Told apart from an unknown version, whose advice (update
    twinbench) would send the user the wrong way (issue 45)."""

    def __init__(self) -> None:
        super().__init__(
            "not a twinbench record: it holds none of the keys every record has "
            f"({', '.join(STABLE_KEYS)}); another tool's file? move it out of the results"
        )


@dataclass(frozen=True)
class ResultRecord(Block):
    """One run's result.json. Blocks are typed (twinbench/result/blocks.py); a field is None in a
    failed run or where the run did not measure it."""

    KEEPS_ORDER: ClassVar[bool] = False  # written in declared order, then `extra` (as always)

    schema_version: int = spec("the record's schema (SCHEMA_HISTORY)", default=SCHEMA_VERSION)
    status: str = spec('"ok" or "failed"', default="ok")
    # a failed run: what went wrong, its kind (config, exception, crash, time_limit, ...)
    error: str = spec("a failed run's error message")
    error_kind: str = spec("config, exception, non_finite_loss, crash, time_limit, ...")
    traceback: str = spec("the worker's traceback of a failed run")
    stderr_tail: list[str] = spec("the last lines a crashed worker wrote")
    # identity of the measurement (twinbench.result.results.run_key) and its repeat
    run_key: str | None = spec("hash of the measured config (results.run_key)")
    repeat: int = spec("which repeat of its config this run is")
    repeats: int | str = spec('repeats asked for: a whole number, or "auto"')
    pair_id: str | None = spec("the interleaved round it ran in (launch/interleave.py)")
    # the backend (conf/backend/<name>.yaml) and, since version 2, its API, runtime and label
    backend: str | None = spec("the backend's name (conf/backend)")
    backend_api: str = spec("the model API (frameworks/registry.py); since version 2")
    backend_runtime: str = spec("the runtime executing the kernels; since version 2")
    backend_label: str = spec("the backend's label in reports; since version 2")
    model: str | None = spec("the model's name (conf/model)")
    params: int | None = spec("trainable parameters counted by the framework", "parameters")
    expected_params: int | None = spec("the count the model's config expects", "parameters")
    # the CPU budget: cores, threads asked for and read back, pinning, thread variables
    cpus: int | None = spec("cores the run was pinned to", "cores")
    threads_requested: Threads = spec("threads asked for", block=Threads)
    threads_actual: Threads | None = spec("threads read back from the framework", block=Threads)
    threads_verified_by: str | None = spec("how the budget was checked where a runtime cannot say")
    native_thread_pools: Any = spec("native pools the adapter found (adapter-specific)")
    affinity: list[int] = spec("the CPU mask read back after pinning")
    thread_env: dict[str, str] = spec("thread variables set before the framework import")
    device: str | None = spec("cpu or cuda")
    device_info: dict[str, Any] | None = spec(
        "a cuda run's GPU: name, index, capability, memory_total_mib, driver, cuda_runtime, "
        "cudnn, memory_peak_mib (the framework's peak allocation over training, reset before "
        "it) and memory_reserved_peak_mib; absent or None on the CPU"
    )
    settings: dict[str, Any] = spec(
        "the backend's software settings read back in effect; `allocator`: glibc's malloc "
        "as it served the steps (frameworks/allocator.py: mode, the variables the process "
        "started with, mapped blocks, heap)"
    )
    framework: dict[str, Any] = spec(
        "versions and build (the adapter's describe()), and the array runtimes imported into "
        "the worker's process by its end (runtimes_in_process)"
    )
    data: Data = spec("the data set", block=Data)
    epochs: int = spec("epochs trained", "epochs")
    batch_size: int = spec("samples per step", "samples")
    steps_per_epoch: int = spec("training steps per epoch", "steps")
    # the measurements
    epoch_times_s: list[float] = spec("wall time per epoch, validation included", "s")
    train_times_s: list[float] = spec("wall time per epoch without validation", "s")
    samples_per_s: list[float] = spec("training samples over train time, per epoch", "samples/s")
    timing: Timing = spec("per-step timing: the steady state", block=Timing)
    budget: Budget = spec("where the training time went", block=Budget)
    steps_file: str = spec("every step's time, beside result.json (steps.json)")
    startup: Startup = spec("what the run costs before it trains at speed", block=Startup)
    flops: Flops | None = spec("FLOP and rate; None for a model without a FLOP rule", block=Flops)
    machine_peak: MachinePeak | None = spec(
        "the machine's GEMM peak; None when not probed", block=MachinePeak
    )
    speed_of_light: SpeedOfLight | None = spec(
        "the model's lower bound per step; None unless asked for", block=SpeedOfLight
    )
    profile: dict[str, Any] | None = spec("per-layer profile after training (profile=true)")
    kernels: dict[str, Any] | None = spec("kernels that ran (measure.kernel_probe)")
    sample: Sample | None = spec(
        "text generated after training; None for a model without conf `sample`", block=Sample
    )
    attention: dict[str, Any] | None = spec(
        "the attention path and kernel that ran, beside arch.attention asked; None for a model "
        "without attention (frameworks/attention_probe.py)"
    )
    subnormals: Subnormals | None = spec(
        "subnormal floats after training in the weights, native torch's gradients, the optimizer "
        "state and one batch's predictions (frameworks/subnormals.py); absent in records made "
        "before 2026-12-07",
        block=Subnormals,
    )
    resources: Resources = spec("memory and CPU used", block=Resources)
    turns: dict[str, Any] | None = spec(
        "the turn-taking with its pair's partner when both ran at once (decision `pairing: "
        "turns`): turns taken and seconds waited, left out of every time; None for a run alone"
    )
    history: History = spec("loss and accuracy per epoch", block=History)
    parity: Parity = spec("the model's equivalence certificate on this backend", block=Parity)
    # where and when, and the resolved config the run was given
    environment: Environment = spec("the machine", block=Environment)
    stack: dict[str, Any] = spec(
        "the framework releases it ran on (conf/stack/): name, every pin's version as the worker "
        "read it back (importlib.metadata), where each loads from, the backend's packages' "
        "versions read back the same way, and the interpreter; absent in records made before "
        "stacks"
    )
    started: str = spec("when the worker started", "UTC ISO 8601")
    finished: str = spec("when the worker finished", "UTC ISO 8601")
    config: dict[str, Any] = spec("the resolved config the run was given")
    flags: list[str] = spec(
        "what qualifies the figures, one line each (oversubscribed: more threads than cores); "
        "absent when nothing does"
    )

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ResultRecord:
        """A parsed result.json of any version in SCHEMA_HISTORY; UnknownSchemaVersion else, and
        NotARecord for a JSON object that is no twinbench record at all.

        Older versions need no conversion yet: version 2 only added fields, absent in version 1.
        """
        if not any(key in data for key in STABLE_KEYS):
            raise NotARecord()
        version = data.get("schema_version")
        if isinstance(version, bool) or version not in SCHEMA_HISTORY:
            raise UnknownSchemaVersion(version)
        return cls.parse(data)

    @classmethod
    def carried(cls, data: dict[str, Any]) -> ResultRecord:
        """The record as `data` carries it, version unchecked and no default filled in: a field
        the data lacks is ABSENT, even those a writer sets by default (schema_version, status).
        For readers that say what a record holds, partial ones included."""
        defaulted = {k: ABSENT for k, f in cls.declared().items() if f.default is not ABSENT}
        return cls.parse(defaulted | data)

    @classmethod
    def of(cls, **values: Any) -> ResultRecord:
        """A record from keyword values: blocks given as dicts are parsed, undeclared keys kept
        in `extra` (for callers that pass a few extra keys through, e.g. a failed run's
        stderr)."""
        return cls.parse(values)

    @classmethod
    def build(cls, status: str, **values: Any) -> ResultRecord:
        """The one way a writer makes a record, measured or failed: every stable key present
        (tools rely on them), blocks typed, undeclared keys kept."""
        record = cls.of(status=status, **values)
        missing = [k for k in STABLE_KEYS if getattr(record, k) is ABSENT]
        if missing:
            raise ValueError(f"a {status} record needs the stable keys {missing}")
        return record

    @classmethod
    def ok(cls, **values: Any) -> ResultRecord:
        """A measured run's record (the worker's assemble phase)."""
        return cls.build("ok", **values)

    @classmethod
    def failed(cls, error: str, **values: Any) -> ResultRecord:
        """A run that produced no measurements: the stable keys it cannot fill are null (params,
        threads read back) or empty (epoch times)."""
        no_measurements = {"params": None, "threads_actual": None, "epoch_times_s": []}
        return cls.build("failed", error=error, **(no_measurements | values))
