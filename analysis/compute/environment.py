"""Where the runs ran: one row per machine, and the thread budget of every configuration."""

from __future__ import annotations

import json

import pandas as pd

MACHINE_FIELDS = [
    "cpu_model",
    "isa_flags",
    "logical_cores",
    "physical_cores",
    "cgroup_cpu_quota",
    "memory_gib",
    "python",
    "platform",
]


def _joined(values: pd.Series) -> str:
    return ", ".join(sorted({str(v) for v in values.dropna() if str(v) != ""}))


def _build(row_json: str) -> str:
    """The framework build facts (oneDNN/MKL/CUDA) as short `key: value` text."""
    try:
        build = json.loads(row_json) if isinstance(row_json, str) else {}
    except ValueError:
        return ""
    if not isinstance(build, dict):
        return ""
    return "; ".join(f"{k}: {v}" for k, v in build.items() if not isinstance(v, list | dict))


def machines(runs: pd.DataFrame) -> pd.DataFrame:
    rows = []
    for machine, group in runs.groupby("machine", sort=True):
        row = {"machine": machine, "source": _joined(group["source"])}
        row.update({f: _joined(group[f]) for f in MACHINE_FIELDS})
        if group["source"].ne("2017 logs").any() and not row["cgroup_cpu_quota"]:
            row["cgroup_cpu_quota"] = "unlimited"  # the records say null: no quota was set
        row["hosts"] = _joined(group["hostname"])
        for backend, b in group.groupby("backend", sort=True):
            versions = _joined(b["framework_version"])
            keras = _joined(b["keras_version"])
            row[f"{backend} version"] = versions + (f" (Keras {keras})" if keras else "")
            row[f"{backend} build"] = " | ".join(sorted({_build(x) for x in b["framework_build"]}))
        rows.append(row)
    return pd.DataFrame(rows)


def threads(runs: pd.DataFrame) -> pd.DataFrame:
    """Requested vs read-back threads per configuration: the evidence the budget held."""
    ours = runs[runs["source"] != "2017 logs"]
    if ours.empty:
        return pd.DataFrame()
    cols = [
        "machine",
        "config_label",
        "cpus",
        "threads_intra_requested",
        "threads_inter_requested",
        "threads_intra_actual",
        "threads_inter_actual",
        "threads_verified",
        "cgroup_cpu_quota",
    ]
    out = ours[cols].drop_duplicates().copy()
    quota = pd.to_numeric(out["cgroup_cpu_quota"], errors="coerce")
    # Thread pools size themselves from the affinity mask, blind to a cgroup quota below it.
    out["quota_below_cores"] = quota.notna() & (quota < pd.to_numeric(out["cpus"]))
    return out.sort_values(["machine", "config_label"]).reset_index(drop=True)
