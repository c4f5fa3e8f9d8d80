"""Did a sweep's backends train on the same batches and score the same validation samples?

Each run records a loop fingerprint per epoch (frameworks/loop_print.py, in history.loop):
hashes of the batch order and of the first batch's bytes, the training and validation samples,
and how a partial last batch weighs in the metrics. Runs that differ only in backend (same
model, seed, data, batch size, epochs, step cap) must agree on all of it; a row per such group
says whether they do, and where not, which epoch and field differs first.
"""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from analysis.load.records import SOURCE

# What must be equal for two runs' loops to be comparable: everything the batches depend on.
SAME = ["model", "seed", "data_source", "batch_size", "workload_epochs", "max_steps"]
FIELDS = (
    "batch_order_sha256",
    "first_batch_sha256",
    "train_samples",
    "val_samples",
    "partial_batch_weighting",
)


def _loop(cell: Any) -> list[dict[str, Any]]:
    try:
        return json.loads(cell) if isinstance(cell, str) else []
    except ValueError:
        return []


def first_difference(a: list[dict[str, Any]], b: list[dict[str, Any]]) -> str | None:
    """The first epoch and field where two loop fingerprints differ (over the epochs both ran),
    or None where they agree."""
    for epoch, (x, y) in enumerate(zip(a, b, strict=False), start=1):
        for name in FIELDS:
            if x.get(name) != y.get(name):
                return f"epoch {epoch}: {name} {x.get(name)} vs {y.get(name)}"
    return None


def loop_agreement(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per group of successful twinbench runs differing only in backend, with two or
    more backends that recorded a loop: the backends, the reference (first by name) and, per
    other backend, its first difference; `same` is True where every backend agrees."""
    if "loop" not in runs or runs.empty:
        return pd.DataFrame()
    ours = runs[(runs["source"] == SOURCE) & (runs["status"] == "ok")].copy()
    ours["loop_parsed"] = ours["loop"].map(_loop)
    ours = ours[ours["loop_parsed"].map(bool)]
    rows = []
    for key, group in ours.groupby([c for c in SAME if c in ours], dropna=False, sort=True):
        if group["backend"].nunique() < 2:
            continue
        # Every run against the first backend's first run: repeats of one backend must agree too.
        ordered = group.sort_values("backend", kind="stable")
        first = ordered.iloc[0]
        found = [
            f"{r['backend']}: {d}"
            for _, r in ordered.iloc[1:].iterrows()
            if (d := first_difference(first["loop_parsed"], r["loop_parsed"]))
        ]
        rows.append(
            {
                **dict(zip([c for c in SAME if c in ours], key, strict=True)),
                "backends": ", ".join(sorted(group["backend"].astype(str).unique())),
                "runs": len(group),
                "compared_with": str(first["backend"]),
                "epochs": int(ordered["loop_parsed"].map(len).min()),
                "same": not found,
                "differences": "; ".join(found) or "none",
            }
        )
    return pd.DataFrame(rows)
