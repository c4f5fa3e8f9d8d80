"""The equivalence certificate per model: what the records say and what results/parity holds,
and the two frameworks' training curves side by side.

Certificates are read only from known folders (the repository's results/parity, a `parity/`
folder inside an input directory, or --parity-dir), never from a path named inside a record:
records are data from other machines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.load.records import SOURCE
from frameworks import certified  # fingerprints and their differences, framework-free
from twinbench.paths import WORK_ROOT

CERT_DIR = WORK_ROOT / "results" / "parity"


def certificate_dirs(inputs: list[Path], extra: list[Path] | None = None) -> list[Path]:
    dirs = [*(extra or []), *(Path(p) / "parity" for p in inputs if Path(p).is_dir()), CERT_DIR]
    return [d for d in dict.fromkeys(dirs) if d.is_dir()]


def _certificate(model: str, dirs: list[Path]) -> tuple[Path | None, dict[str, Any] | None]:
    for folder in dirs:
        path = folder / f"{model}.json"
        if path.is_file():
            try:
                data = json.loads(path.read_text())
            except (OSError, ValueError):
                return path, None
            return path, data if isinstance(data, dict) else None
    return None, None


def _changed_since(model: str, cert: dict[str, Any]) -> list[str]:
    """What differs between the certificate's fingerprint and this checkout's code, config and
    installed framework versions (read without importing a framework); a certificate without
    a fingerprint certifies nothing that can be checked, so it is stale too."""
    if not isinstance(cert.get("fingerprint"), dict):
        return ["no fingerprint (certificate older than fingerprints)"]
    try:
        current = certified.fingerprint(model)
    except (OSError, ValueError):  # a model this checkout does not have
        return [f"model {model} not in this checkout"]
    return certified.differences(cert["fingerprint"], current)


def parity(runs: pd.DataFrame, dirs: list[Path]) -> pd.DataFrame:
    """One row per twinbench model: the records' parity status and the certificate's findings."""
    ours = runs[runs["source"] == SOURCE]
    rows = []
    for model, group in ours.groupby("model", sort=True):
        statuses = sorted({str(s) for s in group["parity_status"].dropna()}) or ["not recorded"]
        path, cert = _certificate(str(model), dirs)
        row: dict[str, Any] = {
            "model": model,
            "status_in_records": ", ".join(statuses),
            "certificate": str(path) if path else "none found",
        }
        verdict, why = certified.verdict(cert) if cert is not None else (None, None)
        if cert is None and path is not None:
            row["certificate_status"] = "unreadable"
            row["command"] = f"python -m twinbench.parity {model}"
        elif verdict == "invalid":  # its figures judged again, never its word
            row.update(
                certificate_status="invalid",
                certificate_problem=why,
                command=f"python -m twinbench.parity {model}",
            )
        elif cert is not None:
            configured = (cert.get("training") or {}).get("configured") or {}
            params = cert.get("params") or {}
            changed = _changed_since(str(model), cert)
            row.update(
                certificate_status="stale" if changed else verdict,
                changed_since="; ".join(changed),
                checked=cert.get("checked"),
                params=", ".join(f"{k} {v:,}" for k, v in sorted(params.items())),
                expected_params=cert.get("expected_params"),
                forward_max_abs_diff=cert.get("forward_max_abs_diff"),
                training_weight_diff=configured.get("weight_max_abs_diff"),
                training_weight_bound=configured.get("weight_bound"),
                training_loss_rel_diff=configured.get("loss_max_rel_diff"),
                lr_schedule_rel_diff=configured.get("lr_max_rel_diff"),
                failures="; ".join(cert.get("failures") or []),
                command=cert.get("command"),
            )
        else:
            row["certificate_status"] = "not checked"
            row["command"] = f"python -m twinbench.parity {model}"
        rows.append(row)
    return pd.DataFrame(rows)


def histories(runs: pd.DataFrame) -> dict[str, dict[str, dict[str, list[float]]]]:
    """Per twinbench model, per backend: the history of one representative successful run.

    The run with the most epochs (then the most cores) stands for its backend: the curves
    compare learning, which the seed fixes; the core count does not change it.
    """
    ours = runs[(runs["source"] == SOURCE) & (runs["status"] == "ok")]
    out: dict[str, dict[str, dict[str, list[float]]]] = {}
    for (model, backend), group in ours.groupby(["model", "backend"], sort=True):
        best = group.sort_values(["epochs_timed", "cpus"], ascending=False).iloc[0]
        try:
            history = json.loads(best["history"]) if isinstance(best["history"], str) else {}
        except ValueError:
            history = {}
        if history:
            out.setdefault(str(model), {})[str(backend)] = history
    return out
