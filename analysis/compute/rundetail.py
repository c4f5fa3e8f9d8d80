"""What happened inside each run: epoch times, every step (steps.json), throughput, curves
against wall-clock time, start-up phases, memory and CPU. One row per successful twinbench run;
the 2017 logs carry none of this."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.load.legacy import SOURCE as LEGACY_SOURCE
from twinbench import stats

# Start-up phases in the order they happen (the worker's `startup` record, in seconds); the
# last, "other", is not recorded but derived in details(): total_s less the others.
STARTUP_PHASES = [
    "process_start", "data", "framework_import", "build", "train_setup", "first_step", "other"
]  # fmt: skip
RUN_WARMUP_STEPS = 10  # the worker's default measure.warmup_steps, for records that lack it


def _seconds(value: Any) -> float | None:
    """A start-up phase's seconds from the runs table, None where the record has none."""
    return float(value) if isinstance(value, (int, float)) and math.isfinite(value) else None


def _json(value: Any, default: Any) -> Any:
    if not isinstance(value, str):
        return default
    try:
        return json.loads(value)
    except ValueError:
        return default


def steady_steps_ms(per_epoch: list[list[int]], warmup_steps: int) -> list[float]:
    """Step times in ms of the same steady state the worker summarises (twinbench.stats)."""
    return stats.steady_steps(per_epoch, warmup_steps, ns_per_unit=1e6)


def read_steps(result_path: str, steps_file: Any) -> list[list[int]] | None:
    """steps.json beside a result.json: every tick's duration in ns, per epoch (None if absent
    or malformed: the detail is then shown without it)."""
    if not isinstance(steps_file, str):
        return None
    path = Path(result_path).parent / steps_file
    try:
        data = json.loads(path.read_text())
        per_epoch = data["per_epoch"]
        if data.get("unit") != "ns" or not all(isinstance(e, list) for e in per_epoch):
            return None
        return [[int(ns) for ns in epoch] for epoch in per_epoch]
    except (OSError, ValueError, KeyError, TypeError):
        return None


def time_to_target(
    epoch_times_s: list[float], val_accuracy: list[float], target: float
) -> float | None:
    """Wall-clock seconds until the end of the first epoch whose validation accuracy reaches
    `target` (MLPerf's time-to-train, at epoch granularity); None if it never does."""
    elapsed = 0.0
    for seconds, accuracy in zip(epoch_times_s, val_accuracy, strict=False):
        elapsed += seconds
        if accuracy is not None and not math.isnan(accuracy) and accuracy >= target:
            return elapsed
    return None


def kernel_share(r: pd.Series) -> float | None:
    """The share of the training parts' CPU time spent in the kernel; None in records from
    before it was read (2026-12-07) or without training CPU time."""
    system, cpu = (
        _number(r.get("system_time_training_steps_s")),
        _number(r.get("cpu_time_training_steps_s")),
    )
    return system / cpu if system is not None and cpu else None


def faults_per_step(r: pd.Series) -> float | None:
    """Minor page faults per training step (max_steps caps each epoch, so steps_per_epoch is the
    count each timed epoch trained)."""
    faults, per_epoch = (
        _number(r.get("minor_faults_training_steps")),
        _number(r.get("steps_per_epoch")),
    )
    epochs = _number(r.get("epochs_timed"))
    return faults / (per_epoch * epochs) if faults is not None and per_epoch and epochs else None


def _number(value: Any) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def details(runs: pd.DataFrame, target_accuracy: float | None = None) -> pd.DataFrame:
    """One row per successful twinbench run with its per-epoch and per-step series."""
    ok = runs[(runs["status"] == "ok") & (runs["source"] != LEGACY_SOURCE)]
    rows = []
    for _, r in ok.iterrows():
        epochs = _json(r.get("epoch_times_s"), [])
        history = _json(r.get("history"), {})
        per_epoch = read_steps(str(r["path"]), r.get("steps_file"))
        row = {
            "workload": r["workload"],
            "model": r["model"],
            "config_label": r["config_label"],
            "backend": r["backend"],
            "repeat": r.get("repeat"),
            "batch_size": r.get("batch_size"),
            "epoch_times_s": epochs,
            "val_accuracy": history.get("val_accuracy") or [],
            "val_loss": history.get("val_loss") or [],
            "steady_step_ms": steady_steps_ms(per_epoch, RUN_WARMUP_STEPS) if per_epoch else [],
            "steady_samples_per_s": r.get("steady_samples_per_s"),
            "steady_step_s": r.get("steady_step_s"),  # the worker's median, also without steps
            "peak_rss_mib": r.get("peak_rss_mib"),
            "cpu_time_training_s": r.get("cpu_time_training_s"),
            "busy_cores_training": r.get("busy_cores_training"),
            "kernel_share_training": kernel_share(r),
            "faults_per_step": faults_per_step(r),
            "time_to_target_s": (
                time_to_target(epochs, history.get("val_accuracy") or [], target_accuracy)
                if target_accuracy is not None
                else None
            ),
        }
        named = [_seconds(r.get(f"startup_{phase}_s")) for phase in STARTUP_PHASES[:-1]]
        for phase, value in zip(STARTUP_PHASES, named, strict=False):
            row[f"startup_{phase}_s"] = value
        # "other": the rest of total_s (the worker's own set-up; in records before 2026-12-05,
        # which had no train_setup_s, the train loop's set-up too), so the phases add up.
        total = _seconds(r.get("startup_total_s"))
        row["startup_other_s"] = (
            None if total is None else total - sum(v for v in named if v is not None)
        )
        rows.append(row)
    return pd.DataFrame(rows)


def first_repeats(detail: pd.DataFrame) -> pd.DataFrame:
    """One run per configuration for the per-run charts (repeats would only overplot)."""
    if detail.empty:
        return detail
    return detail.drop_duplicates(["workload", "config_label"])


def batch_sweeps(detail: pd.DataFrame) -> dict[str, pd.DataFrame]:
    """Per model swept over batch size: median steady samples/s and step time per
    (configuration, batch size). Each batch size is its own workload in the tables (an epoch
    is different work); here the batch size is the x axis."""
    out: dict[str, pd.DataFrame] = {}
    if detail.empty:
        return out
    rows = detail.assign(
        batch_size=pd.to_numeric(detail["batch_size"], errors="coerce"),
        samples_per_s=pd.to_numeric(detail["steady_samples_per_s"], errors="coerce"),
        step_ms=pd.to_numeric(detail["steady_step_s"], errors="coerce") * 1e3,
    )
    for model, runs in rows.groupby("model", sort=False):
        if runs["batch_size"].nunique() < 2:
            continue
        out[str(model)] = (
            runs.groupby(["config_label", "batch_size"], sort=True)[["samples_per_s", "step_ms"]]
            .median()
            .reset_index()
        )
    return out
