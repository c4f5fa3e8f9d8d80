"""The tidy runs table: one row per measured run, from twinbench records and from 2017 logs.

Also the small API the sweep callback (twinbench/cli/sweep_end.py) uses: load_results, failures.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pandas as pd

from analysis.errors import AnalysisError
from analysis.load import legacy, records

INT_COLUMNS = (
    "schema_version",
    "repeat",
    "repeats",
    "cpus",
    "threads_intra_requested",
    "threads_inter_requested",
    "threads_intra_actual",
    "threads_inter_actual",
    "params",
    "expected_params",
    "epochs",
    "workload_epochs",
    "batch_size",
    "steps_per_epoch",
    "max_steps",
    "seed",
    "epochs_timed",
    "logical_cores",
    "physical_cores",
    "settings_changes",
)
BOOL_COLUMNS = (
    "run_key_derived",
    "machine_inferred",
    "threads_verified",
    "settings_default",
    "steady_step_unstable",
    "drifting",
    "subnormals_flagged",
    "page_faults_flagged",
)
TEXT_COLUMNS = (
    "error",
    "error_kind",
    "started",
    "finished",
    "hostname",
    "legacy_label",
    "stack",
    "stack_pins",
    "stack_versions",
)
# Leading columns of the written table: the keys a reader sorts and filters by.
LEADING = [
    "machine",
    "source",
    "workload",
    "config_label",
    "status",
    "backend",
    "model",
    "device",
    "cpus",
    "settings_label",
    "repeat",
    "train_time_s",
    "steady_step_s",
    "error",
]
# What makes runs the same configuration within one source (the workload aside).
CONFIG_KEYS = [
    "source",
    "machine",
    "backend",
    "device",
    "cpus",
    "threads_intra_requested",
    "threads_inter_requested",
    "settings",
    "precision",
    "exec_mode",  # `exec` sets the compile switches in the worker, not in the recorded config
]


def load_rows(paths: list[Path]) -> list[dict[str, Any]]:
    """Rows for every run under `paths`: twinbench result.json files and 2017 log folders."""
    rows: list[dict[str, Any]] = []
    for path in map(Path, paths):
        if not path.exists():
            raise AnalysisError(f"no such file or directory: {path}")
        root = legacy.find_root(path) if path.is_dir() else None
        found = [records.to_row(r) for r in records.load_records([path])]
        if root is not None:
            found += legacy.load(root)
        if not found:
            raise AnalysisError(
                f"{path}: no result.json found, and not a folder of 2017 logs "
                f"(gpu/ and cpu-pip|cpu-compiled/cpuN/ with *{legacy.SUFFIX})"
            )
        rows += found
    return rows


def frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    """Rows -> DataFrame with typed columns and the workload and configuration labels."""
    df = pd.DataFrame(rows)
    # Every column a twinbench record can fill exists, even when only 2017 logs were loaded.
    for column in [*LEADING, *records.to_row(records.Record(Path(), {})), "legacy_test"]:
        if column not in df:
            df[column] = None
    for column in INT_COLUMNS:
        if column in df:
            df[column] = pd.to_numeric(df[column], errors="coerce").astype("Int64")
    for column in BOOL_COLUMNS:
        if column in df:
            df[column] = df[column].astype("boolean")
    for column in TEXT_COLUMNS:
        if column in df:
            df[column] = df[column].astype("string")
    if "workload_epochs" not in df:
        df["workload_epochs"] = df["epochs"]
    df["workload_epochs"] = df["workload_epochs"].fillna(df["epochs"])
    _infer_machines(df)
    df["workload"] = _workload_labels(df)
    df["config_label"] = _config_labels(df)
    rest = [c for c in df.columns if c not in LEADING]
    return df[LEADING + rest].reset_index(drop=True)


def runs_table(paths: list[Path]) -> pd.DataFrame:
    return frame(load_rows(paths))


def _infer_machines(df: pd.DataFrame) -> None:
    """A run that died before describing its machine (the parent writes its failed record)
    ran where the others of its source ran, when they all ran on one machine."""
    unknown = df["machine"] == records.UNKNOWN_MACHINE
    for source, group in df[~unknown].groupby("source"):
        known = group["machine"].unique()
        fill = unknown & (df["source"] == source)
        if len(known) == 1 and fill.any():
            df.loc[fill, "machine"] = known[0]
            df.loc[fill, "machine_inferred"] = True


def _workload_labels(df: pd.DataFrame) -> list[str]:
    """The model name, made unique where one model was trained for different lengths or batch
    sizes: such runs are different workloads, never repeats of one another."""
    by_model = [df["source"], df["model"]]

    def usual(column: str) -> pd.Series:
        # A run that does not say (a failed record, an older schema) is taken to be the usual
        # one for its model, rather than made a workload of its own.
        text = df[column].astype("string")
        mode = text.groupby(by_model, dropna=False).transform(
            lambda s: s.mode().iloc[0] if s.notna().any() else pd.NA
        )
        return text.fillna(mode)

    epochs, batch = usual("workload_epochs"), usual("batch_size")
    steps = df["max_steps"].astype("string")  # missing here means every step: kept as is
    key = epochs.fillna("-") + "/" + steps.fillna("all") + "/" + batch.fillna("-")
    variants = key.groupby(by_model, dropna=False).transform("nunique")
    labels = []
    for i, row in df.iterrows():
        label = row["model"] if isinstance(row["model"], str) else "unknown model"
        if variants[i] > 1:
            shown = [f"{epochs[i]} epochs"]
            shown += [f"<={steps[i]} steps"] if pd.notna(steps[i]) else []
            shown += [f"batch {batch[i]}"] if pd.notna(batch[i]) else []
            label += f" ({', '.join(shown)})"
        labels.append(label)
    return labels


def _config_labels(df: pd.DataFrame) -> pd.Series:
    """`torch cpu2`, `tensorflow gpu`, + threads, settings, machine where those vary."""
    labels = []
    machines = df.groupby("source", dropna=False)["machine"].nunique()
    variants = df.groupby(["source", "backend"], dropna=False)["settings"].nunique()
    modes = df.groupby(["source", "backend"], dropna=False)["exec_mode"].nunique()
    # Fused and explicit attention runs of one backend are two configurations, not repeats of
    # one: where a source holds both, the label says which (analysis/compute/attention_split.py).
    attention = (
        df.groupby(["source", "backend"], dropna=False)["attention"].nunique()
        if "attention" in df
        else pd.Series(dtype=int)
    )
    for _, row in df.iterrows():
        if isinstance(row.get("legacy_label"), str):
            labels.append(row["legacy_label"])
            continue
        cpus, device = row["cpus"], row["device"]
        label = f"{row['backend'] or 'unknown'} "
        label += "gpu" if device == "cuda" else (f"cpu{cpus}" if pd.notna(cpus) else "cpu?")
        intra, inter = row["threads_intra_requested"], row["threads_inter_requested"]
        if pd.notna(cpus) and any(pd.notna(t) and t != cpus for t in (intra, inter)):
            label += f" t{intra}/{inter}"
        if variants.get((row["source"], row["backend"]), 1) > 1:
            label += f" [{row['settings_label']}]"
        elif modes.get((row["source"], row["backend"]), 1) > 1:  # switched by exec=, unseen
            label += f" {row['exec_mode']}"  # in the recorded settings: say it here
        if attention.get((row["source"], row["backend"]), 1) > 1:
            label += f" {row['attention']} attention"
        stack = row.get("stack")  # None or NA in records made before stacks existed
        if stack is not None and pd.notna(stack) and stack != "pinned":
            label += f" on {row['stack']}"  # another release: never a repeat of the pinned one
        if row.get("precision") == "bfloat16":  # float32 is every older record's: unsaid
            label += " bf16"
        if machines.get(row["source"], 1) > 1:
            label += f" @ {row['machine']}"
        labels.append(label)
    return pd.Series(labels, index=df.index, dtype="string")


# ---------------------------------------------------------------- the sweep callback's API


def load_results(paths: list[Path]) -> list[tuple[Path, dict[str, Any]]]:
    """Every result.json under `paths` (files or directories), with where it was found."""
    return [(r.path, r.data) for r in records.load_records([Path(p) for p in paths])]


def failures(found: list[tuple[Path, dict[str, Any]]]) -> list[tuple[Path, dict[str, Any]]]:
    return [(p, r) for p, r in found if r.get("status") != "ok"]
