"""twinbench result records: find every result.json, check it, flatten it into one table row.

A record written by another machine is data: it is parsed as JSON and nothing in it is executed,
imported or opened (a certificate path inside a record is shown, never read).
Rows are built from the typed record (twinbench/result/record.py and blocks.py): fields added by
later schema work (timing, startup, flops, settings, run_key, repeat) are used when present and
read as None when absent, so today's and tomorrow's records load side by side.
"""

from __future__ import annotations

import functools
import hashlib
import json
import math
import statistics
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.compute import attention_split, layers, machine_peak, speed_of_light
from analysis.errors import AnalysisError
from analysis.load import axes, backends
from twinbench.result.block import ABSENT, present
from twinbench.result.blocks import (
    PAGE_FAULTS_FLAG,
    STEADY_STEP_S,
    SUBNORMALS_FLAG,
    Budget,
    Data,
    Drift,
    Environment,
    Flops,
    History,
    Parity,
    Resources,
    Startup,
    Summary,
    Threads,
    Timing,
)
from twinbench.result.record import NotARecord, ResultRecord, UnknownSchemaVersion

# Config keys that say how a sweep ran, not what was measured: the writer's own list.
from twinbench.result.results import LATER_DEFAULTS, NOT_MEASURED, RESULT_FILE, run_key

SOURCE = "twinbench"
UNKNOWN_MACHINE = "unknown machine"


@dataclass(frozen=True)
class Record:
    path: Path
    data: dict[str, Any]


def find_result_files(path: Path) -> list[Path]:
    """`path` itself if it is a file, else every result.json below it, in a stable order."""
    path = Path(path)
    if path.is_file():
        return [path]
    return sorted(path.rglob(RESULT_FILE))


def read_record(path: Path) -> dict[str, Any]:
    """Parse one result file; unusable files raise AnalysisError naming the file."""
    try:
        text = Path(path).read_text()
    except OSError as exc:
        raise AnalysisError(f"{path}: cannot read: {exc.strerror or exc}") from None
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise AnalysisError(f"{path}: not valid JSON ({exc})") from None
    if not isinstance(data, dict):
        raise AnalysisError(f"{path}: not a result record (a JSON {type(data).__name__})")
    try:  # the record's owner reads every schema version it knows (twinbench/result/record.py)
        return ResultRecord.from_json(data).to_json()
    except (NotARecord, UnknownSchemaVersion) as exc:
        raise AnalysisError(f"{path}: {exc}") from None


def load_records(paths: list[Path]) -> list[Record]:
    return [Record(f, read_record(f)) for p in paths for f in find_result_files(Path(p))]


# ---------------------------------------------------------------- flattening


def _get(data: Any, *keys: str) -> Any:
    """data[k1][k2]... or None where any level is missing or not a mapping."""
    for key in keys:
        if not isinstance(data, dict):
            return None
        data = data.get(key)
    return data


def _num(value: Any) -> float | None:
    """A finite float, or None: records may carry null, strings or NaN where a value is absent."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def canonical(value: Any) -> str:
    """JSON with sorted keys: equal content gives an equal string (and hash)."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"), default=str)


def short_hash(value: Any) -> str:
    return hashlib.sha256(canonical(value).encode()).hexdigest()[:16]


def measured_config(config: Any) -> dict[str, Any]:
    """The part of a run's config that decides what is measured."""
    if not isinstance(config, dict):
        return {}
    return {k: v for k, v in config.items() if k not in NOT_MEASURED}


def derived_run_key(config: Any) -> str:
    """The run identity for records written before `run_key` existed: the writer's own
    definition."""
    return run_key(config if isinstance(config, dict) else {})


def _flagged(record: Any, prefix: str) -> bool:
    """Whether any of the record's flags begins with `prefix` (twinbench.result.blocks)."""
    flags = record.flags if isinstance(record.flags, list) else []
    return any(str(f).startswith(prefix) for f in flags)


def settings_of(record: dict[str, Any]) -> dict[str, Any]:
    """Backend software settings as the config asked for them (the worker verified them in
    effect, or the run failed); else the read-back `settings` of records without a config."""
    backend = _get(record, "config", "backend")
    if isinstance(backend, dict):
        # A setting added later, at its do-nothing default (backend.tf32=null), is left out: a
        # record from before it existed and one from after are the same settings.
        later = {path[1]: value for path, value in LATER_DEFAULTS if path[0] == "backend"}
        return {
            k: v for k, v in backend.items() if k != "name" and not (k in later and v == later[k])
        }
    settings = record.get("settings")
    return settings if isinstance(settings, dict) else {}


def _preset(record: dict[str, Any]) -> tuple[str | None, dict[str, Any]]:
    """The settings preset a run started from (conf/opt/<name>.yaml) and its values for the
    run's backend."""
    opt = _get(record, "config", "opt")
    if not isinstance(opt, dict):
        return (opt if isinstance(opt, str) else None), {}
    values = opt.get(record.get("backend") or "", {})
    return opt.get("name"), values if isinstance(values, dict) else {}


def settings_difference(record: dict[str, Any], settings: dict[str, Any]) -> dict[str, Any]:
    """Only what differs from the run's preset: what a reader needs to tell variants apart."""
    _, preset = _preset(record)
    if not preset:
        return settings
    return {k: v for k, v in settings.items() if k not in preset or preset[k] != v}


def settings_label(settings: dict[str, Any]) -> str:
    def show(v: Any) -> str:
        if v is True:
            return "on"
        if v is False:
            return "off"
        return str(v)

    return ", ".join(f"{k}={show(v)}" for k, v in sorted(settings.items())) or "default"


def _is_default_preset(record: dict[str, Any]) -> bool | None:
    """True where the run used `opt=default` with no setting overridden (the headline), False
    where it named another preset or overrode one, None where the record cannot say."""
    name, preset = _preset(record)
    if name is None:
        return None
    if not preset:  # a record naming its preset without its values
        return name == "default"
    return name == "default" and not settings_difference(record, settings_of(record))


def _settings_label(record: dict[str, Any], settings: dict[str, Any]) -> str:
    name, _ = _preset(record)
    diff = settings_label(settings_difference(record, settings))
    if name in (None, "default"):
        return diff
    return name if diff == "default" else f"{name}, {diff}"


def _threads(value: Any, kind: str) -> int | None:
    count = getattr(Threads.typed(value), kind)
    return int(count) if isinstance(count, int) and not isinstance(count, bool) else None


def _epoch_times(record: ResultRecord) -> list[float]:
    times = record.epoch_times_s
    if not isinstance(times, list):
        return []
    return [t for t in (_num(v) for v in times) if t is not None]


def _history(record: ResultRecord) -> dict[str, list[float]]:
    history = History.typed(record.history).to_json()
    # The loop fingerprint is no curve: its own column ("loop", analysis/compute/loops.py).
    return {k: v for k, v in history.items() if isinstance(v, list) and k != "loop"}


def _last(values: list[Any] | None) -> float | None:
    """The last value that is there: epochs between validations hold null (validate_every)."""
    present = [v for v in values or [] if v is not None]
    return _num(present[-1]) if present else None


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


@functools.lru_cache(maxsize=4096)
def sweep_of(folder: Path) -> str | None:
    """The Hydra sweep a run's folder lies in (the nearest folder above it holding the sweep's
    multirun.yaml), or None for a run outside any sweep: runs of one sweep share its minutes of
    the machine, so the analysis takes a sweep, not a run, as one value where several meet."""
    for candidate in (folder, *folder.parents):
        if (candidate / "multirun.yaml").is_file():
            return str(candidate)
    return None


def to_row(rec: Record) -> dict[str, Any]:
    """One run as a flat row: plain scalars, lists and dicts as canonical JSON strings."""
    r = rec.data
    record = ResultRecord.carried(r)  # typed blocks; what the record lacks reads as None
    env = Environment.typed(record.environment)
    config = _mapping(record.config)
    times = _epoch_times(record)
    history = _history(record)
    settings = settings_of(r)
    requested = {k: _threads(record.threads_requested, k) for k in ("intra_op", "inter_op")}
    actual = {k: _threads(record.threads_actual, k) for k in ("intra_op", "inter_op")}
    run_key = present(record.run_key) or config.get("run_key")
    repeat = config.get("repeat") if record.repeat is ABSENT else record.repeat
    timing = Timing.typed(record.timing)
    step = Summary.typed(timing.steady_step_s)
    drift = Drift.typed(timing.drift)
    flops = Flops.typed(record.flops)
    used = Resources.typed(record.resources)
    data = Data.typed(record.data)
    fingerprint = present(env.fingerprint) or (
        f"{env.cpu_model} x{present(env.logical_cores)}" if present(env.cpu_model) else None
    )
    row: dict[str, Any] = {
        "source": SOURCE,
        "path": str(rec.path),
        "sweep": sweep_of(Path(rec.path).parent),
        "machine": fingerprint or UNKNOWN_MACHINE,
        "machine_inferred": False,
        "hostname": present(env.hostname),
        "schema_version": present(record.schema_version),
        "status": present(record.status) or "unknown",
        "error": present(record.error),
        "error_kind": present(record.error_kind),
        "run_key": run_key or derived_run_key(config),
        "run_key_derived": not run_key,
        "repeat": repeat if isinstance(repeat, int) else None,
        "repeats": record.repeats if isinstance(record.repeats, int) else None,
        "started": present(record.started),
        "finished": present(record.finished),
        "backend": present(record.backend),
        **backends.columns(present(record.backend), r),
        "model": present(record.model),
        "device": present(record.device) or "cpu",
        "cpus": record.cpus if isinstance(record.cpus, int) else None,
        "threads_intra_requested": requested["intra_op"],
        "threads_inter_requested": requested["inter_op"],
        "threads_intra_actual": actual["intra_op"],
        "threads_inter_actual": actual["inter_op"],
        "threads_verified": (requested == actual) if None not in actual.values() else None,
        "params": present(record.params),
        "expected_params": present(record.expected_params),
        "dataset": present(data.dataset),
        "data_source": present(data.source),
        "epochs": present(record.epochs),
        # A failed run may not say how long it was meant to train: its config does.
        "workload_epochs": present(record.epochs)
        or config.get("epochs")
        or _get(config, "model", "epochs"),
        "batch_size": present(record.batch_size) or _get(config, "model", "batch_size"),
        "steps_per_epoch": present(record.steps_per_epoch),
        "max_steps": config.get("max_steps"),
        "seed": config.get("seed"),
        # The interleaved round it ran in (twinbench/launch/interleave.py): runs of two backends
        # with one pair_id were measured back to back, so their ratio is a paired one.
        "pair_id": present(record.pair_id),
        "settings": canonical(settings),
        **axes.columns(r),  # precision and execution mode (axes.py)
        "settings_label": _settings_label(r, settings),
        # How many settings differ from the preset: with no default run in a cell, the variant
        # closest to it stands for out-of-the-box behaviour.
        "settings_changes": len(settings_difference(r, settings)),
        "settings_default": _is_default_preset(r),
        "config_label": None,  # set by the table once every run is known (see labels.py)
        "legacy_label": None,
        "epochs_timed": len(times),
        # The 2017 benchmark's figure: wall time of every epoch, validation included, summed.
        # fsum: the correctly rounded sum, independent of the order pandas or numpy would use.
        "train_time_s": math.fsum(times) if times else None,
        "epoch_time_first_s": times[0] if times else None,
        "epoch_time_median_s": statistics.median(times) if times else None,
        STEADY_STEP_S: _num(step.median),
        "steady_step_ci_low_s": _num(step.ci_low),
        "steady_step_ci_high_s": _num(step.ci_high),
        "steady_step_unstable": present(step.unstable),
        "steady_samples_per_s": _num(timing.steady_samples_per_s),
        "drift_ratio": _num(drift.ratio_last_to_first_third),
        "drifting": present(drift.drifting),
        # The worker flagged subnormals its kernels computed with (frameworks/subnormals.py):
        # beside a drift, its likely cause.
        "subnormals_flagged": _flagged(record, SUBNORMALS_FLAG),
        # ... and the steps' time in the kernel under glibc's default malloc
        # (frameworks/allocator.py): a share of a framework effect that is the allocator's.
        "page_faults_flagged": _flagged(record, PAGE_FAULTS_FLAG),
        "flops_per_step": _num(flops.per_step),
        "achieved_gflops": _num(flops.achieved_gflops),
        "peak_gflops": _num(flops.peak_gflops),
        "fraction_of_peak": _num(flops.fraction_of_peak),
        "parity_status": present(Parity.typed(record.parity).status),
        "peak_rss_mib": _num(used.peak_rss_mib),
        "cpu_time_training_s": _num(used.cpu_time_training_s),
        "busy_cores_training": _num(used.busy_cores_training),
        "cpu_time_training_steps_s": _num(used.cpu_time_training_steps_s),
        "system_time_training_steps_s": _num(used.system_time_training_steps_s),
        "minor_faults_training_steps": _num(used.minor_faults_training_steps),
        "steps_file": present(record.steps_file),
        "final_loss": _last(history.get("loss")),
        "final_accuracy": _last(history.get("accuracy")),
        "final_val_loss": _last(history.get("val_loss")),
        "final_val_accuracy": _last(history.get("val_accuracy")),
        "framework_version": _get(record.framework, "version"),
        "keras_version": _get(record.framework, "keras_version"),
        "framework_build": canonical(_get(record.framework, "build") or {}),
        "cpu_model": present(env.cpu_model),
        "isa_flags": " ".join(present(env.isa_flags) or []),
        "logical_cores": present(env.logical_cores),
        "physical_cores": present(env.physical_cores),
        "cgroup_cpu_quota": _num(env.cgroup_cpu_quota),
        "memory_gib": _num(env.memory_gib),
        "python": present(env.python),
        "platform": present(env.platform),
        "affinity": canonical(record.affinity) if present(record.affinity) is not None else None,
        **_slurm(present(env.slurm)),
        "epoch_times_s": canonical(times),
        "history": canonical(history),
        "loop": canonical(History.typed(record.history).to_json().get("loop") or []),
        "config_hash": short_hash(measured_config(config)),
        "content_hash": short_hash(r),
    }
    for key, value in Startup.typed(record.startup).to_json().items():
        if _num(value) is not None:
            row[f"startup_{key.removesuffix('_s')}_s"] = _num(value)
    parts = Budget.typed(record.budget).parts_s
    if isinstance(parts, dict):  # twinbench.result.budget: where the training time went
        for key, value in parts.items():
            if _num(value) is not None:
                row[f"budget_{key}_s"] = _num(value)
    row.update(machine_peak.columns(r))
    row.update(layers.columns(r))
    row.update(attention_split.columns(r))  # asked and ran, transformer workloads only
    row.update(speed_of_light.columns(r))
    return row


def _slurm(slurm: Any) -> dict[str, Any]:
    """The Slurm job a run belonged to, when it ran under Slurm (requeued if restart_count > 0)."""
    if not isinstance(slurm, dict):
        return {}
    granted = slurm.get("granted_cpus")
    return {
        "slurm_job_id": slurm.get("job_id"),
        "slurm_restart_count": slurm.get("restart_count"),
        "slurm_granted_cpus": canonical(granted) if granted is not None else None,
    }
