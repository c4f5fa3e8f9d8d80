"""result.json: the record of one run. Written atomically, read by analysis/ as plain data.

The record's fields, its schema version and history live in twinbench/result/record.py
(ResultRecord);
this module writes and reads files. Top-level keys that tools rely on are listed in STABLE_KEYS
(record.py) and must not be renamed; the full schema is docs/reference/result-schema.md, generated
from the code by twinbench/result/schema_doc.py.
"""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any

from twinbench.result.record import SCHEMA_VERSION, STABLE_KEYS, ResultRecord

# re-exported: where readers have looked them up
__all__ = ["SCHEMA_VERSION", "STABLE_KEYS", "ResultRecord"]
RESULT_FILE = "result.json"


# Keys that change how a sweep is run, not what a run measures: left out of the run identity.
NOT_MEASURED = (
    "repeats",
    "repeat",
    "repeat_slot",
    "pair_id",
    "run_key",
    "force",
    "time_limit_s",
    "allow_parallel",
    "measure",
    "certify",
    "report",
    "quiet",
    "verbose",
    "allow_emulated_bf16",  # a permission: the run it allows is the same run
    "stacks",  # where stacks' environments are cached, not which stack runs (`stack` is kept)
)
# The stack that is the project's own environment (conf/stack/pinned.yaml): left out of the key,
# so records made before stacks existed, all on this environment, keep their keys.
OWN_STACK = "pinned"


# Keys added after records existed, at the value that changes nothing: left out of the key
# while they hold it, so older records keep their keys and a resumed sweep finds them (as
# OWN_STACK). backend.tf32 and its presets (opt.<backend>.tf32; "*" is any key there): null
# leaves the TF32 switches as they were.
LATER_DEFAULTS: tuple[tuple[tuple[str, ...], Any], ...] = (
    (("backend", "tf32"), None),
    (("opt", "*", "tf32"), None),
    (("backend", "allocator"), "default"),  # glibc's malloc as it comes (2026-12-07)
    (("opt", "*", "allocator"), "default"),
)


def _drop(node: dict[str, Any], path: tuple[str, ...], default: Any) -> dict[str, Any]:
    """A copy of `node` less the key at `path` where it holds `default`; `node` is unchanged."""
    head, rest = path[0], path[1:]
    out = dict(node)
    keys = list(out) if head == "*" else [head]
    for key in keys:
        if not rest:
            if key in out and out[key] == default:
                del out[key]
        elif isinstance(out.get(key), dict):
            out[key] = _drop(out[key], rest, default)
    return out


def _without_later_defaults(config: dict[str, Any]) -> dict[str, Any]:
    """The config less LATER_DEFAULTS' keys where they hold their default; the caller's dicts
    are never changed."""
    out = config
    for path, default in LATER_DEFAULTS:
        out = _drop(out, path, default)
    return out


def run_key(config: dict[str, Any]) -> str:
    """Identity of a measurement: a hash of the resolved config minus NOT_MEASURED keys. The
    stack (name and pins) is part of it, so runs of two releases never mix.

    A resumed sweep skips a run whose finished result carries the same key.
    """
    import hashlib

    relevant = {k: v for k, v in _without_later_defaults(config).items() if k not in NOT_MEASURED}
    stack = relevant.get("stack")
    if isinstance(stack, dict) and stack.get("name") == OWN_STACK and not stack.get("pins"):
        del relevant["stack"]
    canonical = json.dumps(relevant, sort_keys=True, separators=(",", ":"), default=str)
    return hashlib.sha256(canonical.encode()).hexdigest()[:16]


def write_atomic(path: Path, record: dict[str, Any]) -> None:
    """Write JSON so that readers see either the old file or the complete new one, never a part.

    The temporary file lives in the same directory so the final rename stays on one filesystem,
    where os.replace is atomic.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w") as f:
            # mkstemp creates 0600; a record is as readable as every other file of the run.
            os.fchmod(f.fileno(), 0o666 & ~_umask())
            json.dump(record, f, indent=2, allow_nan=False, default=_jsonable)
            f.write("\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException as exc:
        Path(tmp).unlink(missing_ok=True)
        if isinstance(exc, OSError) and exc.filename is None:  # a failed write names no file
            raise OSError(exc.errno, exc.strerror, str(path)) from exc
        raise


def _umask() -> int:
    """The process umask (reading it means setting it, so it is set straight back)."""
    mask = os.umask(0)
    os.umask(mask)
    return mask


def _jsonable(value: Any) -> Any:
    """numpy scalars and arrays, Paths: the only non-JSON types a record may carry."""
    if hasattr(value, "tolist"):
        return value.tolist()
    if isinstance(value, Path):
        return str(value)
    raise TypeError(f"not JSON serializable: {type(value).__name__}")


def read(path: Path) -> dict[str, Any]:
    return json.loads(Path(path).read_text())
