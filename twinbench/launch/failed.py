"""The record of a run that produced no measurements: what it was asked, what went wrong, where.

Written by the parent (a time limit, a crash, bad input found late) and by the worker (an
exception while training), through the same ResultRecord as a measured run.
"""

from __future__ import annotations

import math
from typing import Any

from frameworks import registry
from twinbench.machine import environment
from twinbench.result.record import ResultRecord


def backend_identity(name: Any) -> dict[str, str]:
    """The backend's model API, runtime and label as the record carries them (schema 2), so the
    analysis never needs this checkout's registry to tell an API from a runtime; empty for a
    name the registry does not know (a failed run may have been given one)."""
    try:
        spec = registry.spec(name)
    except (ValueError, TypeError):
        return {}
    return {"backend_api": spec.api, "backend_runtime": spec.runtime, "backend_label": spec.label}


def failed_record(config: dict[str, Any], error: str, **extra: Any) -> dict[str, Any]:
    """A result for a run that did not produce measurements, from the config it was given
    (ResultRecord.failed fills the stable keys a failure cannot). `extra`: more fields
    (error_kind, traceback, stderr_tail, ...), declared or not."""
    backend = config.get("backend", {}).get("name")
    return ResultRecord.failed(
        error,
        run_key=config.get("run_key"),
        repeat=config.get("repeat", 0),
        pair_id=config.get("pair_id"),
        backend=backend,
        **backend_identity(backend),
        model=config.get("model", {}).get("name"),
        cpus=config.get("cpus"),
        threads_requested={
            "intra_op": config.get("threads"),
            "inter_op": config.get("interop_threads"),
        },
        device=config.get("device"),
        # The machine, so a failure is reported beside the runs of the same hardware.
        environment=environment.describe(),
        config=_json_safe(config),  # a refused nan must not make the record unwritable
        **extra,
    ).to_json()


def _json_safe(value: Any) -> Any:
    """Non-finite floats (which strict JSON cannot hold) as their text, everything else as is."""
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {k: _json_safe(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_json_safe(v) for v in value]
    return value
