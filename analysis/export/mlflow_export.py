"""Export collected runs to MLflow, for teams that track experiments there (optional).

    python -m analysis mlflow <results dirs...> [--tracking-uri file:./mlruns] [--experiment NAME]

One MLflow run per twinbench run (failed ones included, tagged as such): the configuration as
params, the headline figures as metrics, per-epoch series as stepped metrics, result.json as an
artifact. MLflow is an optional extra (`pip install .[mlflow]`); without it this command says so.
Re-exporting is idempotent: a run already exported (same content hash) is skipped.
"""

from __future__ import annotations

import json
import math
import os
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.errors import AnalysisError

PARAMS = ["source", "machine", "workload", "config_label", "backend", "model", "device", "cpus",
          "threads_intra_requested", "threads_inter_requested", "batch_size", "epochs",
          "max_steps", "seed", "repeat", "settings_label", "framework_version"]  # fmt: skip
METRICS = {
    "train_time_s": 1.0,
    "steady_step_s": 1e3,  # logged in ms, as everywhere else
    "steady_samples_per_s": 1.0,
    "final_val_accuracy": 1.0,
    "final_val_loss": 1.0,
    "achieved_gflops": 1.0,
    "fraction_of_peak": 1.0,
    "peak_rss_mib": 1.0,
    "cpu_time_training_s": 1.0,
    "startup_total_s": 1.0,
}
METRIC_NAMES = {"steady_step_s": "steady_step_ms"}


def _present(value: Any) -> bool:
    if value is None or value is pd.NA:
        return False
    return not (isinstance(value, float) and math.isnan(value))


def _series(row: pd.Series) -> dict[str, list[float]]:
    out: dict[str, list[float]] = {}
    times = json.loads(row["epoch_times_s"]) if isinstance(row.get("epoch_times_s"), str) else []
    if times:
        out["epoch_time_s"] = times
    history = json.loads(row["history"]) if isinstance(row.get("history"), str) else {}
    for key in ("loss", "accuracy", "val_loss", "val_accuracy"):
        if history.get(key):
            out[key] = history[key]
    return out


def export(paths: list[Path], tracking_uri: str, experiment: str) -> tuple[int, int]:
    """Log every run under `paths`; returns (exported, skipped as already there)."""
    try:
        import mlflow
    except ImportError:
        raise AnalysisError(
            "MLflow is not installed: pip install 'mlflow-skinny' (or .[mlflow]) to export"
        ) from None
    from analysis.load.table import runs_table

    runs = runs_table(paths)
    if tracking_uri.startswith("file:") or "://" not in tracking_uri:
        # MLflow 3 keeps the plain-folder store only on request; a file: URI is that request.
        os.environ.setdefault("MLFLOW_ALLOW_FILE_STORE", "true")
    try:
        return _log(mlflow.MlflowClient(tracking_uri=tracking_uri), runs, experiment)
    except mlflow.exceptions.MlflowException as exc:
        raise AnalysisError(f"MLflow refused the export: {str(exc).splitlines()[0]}") from None


def _log(client: Any, runs: pd.DataFrame, experiment: str) -> tuple[int, int]:
    found = client.get_experiment_by_name(experiment)
    experiment_id = found.experiment_id if found else client.create_experiment(experiment)
    done = {
        r.data.tags.get("twinbench.content_hash")
        for r in client.search_runs([experiment_id], max_results=50_000)
    }
    exported = skipped = 0
    for _, row in runs.iterrows():
        if row["content_hash"] in done:
            skipped += 1
            continue
        name = f"{row['workload']} {row['config_label']}"
        if _present(row.get("repeat")):
            name += f" r{int(row['repeat'])}"
        tags = {
            "twinbench.status": str(row["status"]),
            "twinbench.content_hash": str(row["content_hash"]),
            "twinbench.run_key": str(row["run_key"]),
            "twinbench.path": str(row["path"]),
        }
        if _present(row.get("error")):
            tags["twinbench.error"] = str(row["error"])[:5000]
        run = client.create_run(experiment_id, run_name=name, tags=tags)
        rid = run.info.run_id
        for key in PARAMS:
            if key in row and _present(row[key]):
                client.log_param(rid, key, str(row[key]))
        for key, scale in METRICS.items():
            if key in row and _present(row[key]):
                client.log_metric(rid, METRIC_NAMES.get(key, key), float(row[key]) * scale)
        for key, values in _series(row).items():
            for epoch, value in enumerate(values, start=1):
                if value is not None and math.isfinite(value):
                    client.log_metric(rid, f"epoch/{key}", float(value), step=epoch)
        if Path(str(row["path"])).is_file():
            client.log_artifact(rid, str(row["path"]))
        client.set_terminated(rid, status="FINISHED" if row["status"] == "ok" else "FAILED")
        exported += 1
    return exported, skipped
