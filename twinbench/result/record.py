"""The result record of one run (result.json): its one definition, its schema history, and the
way in (`from_json`) and out (`to_json`) for every writer and reader.

The worker writes a measured run with `ResultRecord(status="ok", ...)`, a failed run is written
by twinbench.launch.failed.failed_record through the same class, and analysis/load/records.py reads
every
file with `from_json`. A key this class does not declare (a newer writer's, or a one-off such as
a probe's note) is kept in `extra` and written back, never dropped.

A field left at ABSENT is not written: a failed run says what it knows and no more, and a field
set to None is written as null (e.g. "no profile was taken").
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

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


class UnknownSchemaVersion(ValueError):
    """A record of a version this code cannot read (newer, or no version at all)."""

    def __init__(self, version: Any) -> None:
        super().__init__(
            f"unknown schema_version {version!r}; this twinbench reads versions "
            f"{', '.join(map(str, SCHEMA_HISTORY))} (update twinbench to read newer records)"
        )
        self.version = version


class _Absent:
    """Marks a field the record does not carry (as opposed to None, written as null)."""

    def __repr__(self) -> str:
        return "ABSENT"


ABSENT: Any = _Absent()


@dataclass
class ResultRecord:
    schema_version: int = SCHEMA_VERSION
    status: str = "ok"  # "ok" or "failed"
    # a failed run: what went wrong, its kind (config, exception, crash, time_limit, ...)
    error: Any = ABSENT
    error_kind: Any = ABSENT
    traceback: Any = ABSENT
    stderr_tail: Any = ABSENT
    # identity of the measurement (twinbench.result.results.run_key) and its repeat
    run_key: Any = ABSENT
    repeat: Any = ABSENT
    repeats: Any = ABSENT  # a whole number, or "auto" (adaptive repeats)
    pair_id: Any = ABSENT  # the runs it was interleaved with (twinbench/launch/interleave.py)
    # the backend (conf/backend/<name>.yaml) and, since version 2, its API, runtime and label
    backend: Any = ABSENT
    backend_api: Any = ABSENT
    backend_runtime: Any = ABSENT
    backend_label: Any = ABSENT
    model: Any = ABSENT
    params: Any = ABSENT
    expected_params: Any = ABSENT
    # the CPU budget: cores, threads asked for and read back, pinning, thread variables
    cpus: Any = ABSENT
    threads_requested: Any = ABSENT
    threads_actual: Any = ABSENT
    threads_verified_by: Any = ABSENT  # how the budget was checked where a runtime cannot say
    native_thread_pools: Any = ABSENT
    affinity: Any = ABSENT
    thread_env: Any = ABSENT
    device: Any = ABSENT
    settings: Any = ABSENT  # the backend's software settings read back in effect
    framework: Any = ABSENT  # versions and build (the adapter's describe())
    data: Any = ABSENT
    epochs: Any = ABSENT
    batch_size: Any = ABSENT
    steps_per_epoch: Any = ABSENT
    # the measurements
    epoch_times_s: Any = ABSENT
    train_times_s: Any = ABSENT
    samples_per_s: Any = ABSENT
    timing: Any = ABSENT
    budget: Any = ABSENT
    steps_file: Any = ABSENT
    startup: Any = ABSENT
    flops: Any = ABSENT
    machine_peak: Any = ABSENT
    speed_of_light: Any = ABSENT
    profile: Any = ABSENT
    kernels: Any = ABSENT
    resources: Any = ABSENT
    history: Any = ABSENT
    parity: Any = ABSENT
    # where and when, and the resolved config the run was given
    environment: Any = ABSENT
    started: Any = ABSENT
    finished: Any = ABSENT
    config: Any = ABSENT
    extra: dict[str, Any] = field(default_factory=dict)  # keys not declared above, kept

    def to_json(self) -> dict[str, Any]:
        """The record as result.json holds it: declared fields in this order, then `extra`."""
        out = {
            f.name: getattr(self, f.name)
            for f in fields(self)
            if f.name != "extra" and getattr(self, f.name) is not ABSENT
        }
        return out | {k: v for k, v in self.extra.items() if k not in out}

    @classmethod
    def declared(cls) -> set[str]:
        return {f.name for f in fields(cls)} - {"extra"}

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ResultRecord:
        """A parsed result.json of any version in SCHEMA_HISTORY; UnknownSchemaVersion else.

        Older versions need no conversion yet: version 2 only added fields, absent in version 1.
        """
        version = data.get("schema_version")
        if isinstance(version, bool) or version not in SCHEMA_HISTORY:
            raise UnknownSchemaVersion(version)
        known = cls.declared()
        return cls(
            **{k: v for k, v in data.items() if k in known},
            extra={k: v for k, v in data.items() if k not in known},
        )

    @classmethod
    def of(cls, **values: Any) -> ResultRecord:
        """A record from keyword values, undeclared ones kept in `extra` (for callers that pass
        a few extra keys through, e.g. a failed run's stderr)."""
        known = cls.declared()
        return cls(
            **{k: v for k, v in values.items() if k in known},
            extra={k: v for k, v in values.items() if k not in known},
        )
