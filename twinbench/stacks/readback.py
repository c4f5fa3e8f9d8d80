"""What a stack's interpreter really runs: each pinned package's version as importlib.metadata
finds it first on sys.path (the version `import` loads), and where it lies.

Run in the stack's interpreter, by the build (`python -m twinbench.stacks.readback PINS...`, which
prints JSON) and by the worker (`stack_block`), so a record carries the versions read back, not
the versions asked for.
"""

from __future__ import annotations

import json
import sys
from importlib import metadata
from typing import Any


def versions(names: list[str]) -> dict[str, dict[str, str | None]]:
    """name -> {"version", "location"}; version None where the package is not installed."""
    found: dict[str, dict[str, str | None]] = {}
    for name in names:
        try:
            dist = metadata.distribution(name)
        except metadata.PackageNotFoundError:
            found[name] = {"version": None, "location": None}
            continue
        location = dist.locate_file("")
        found[name] = {"version": dist.version, "location": str(location)}
    return found


def interpreter() -> dict[str, Any]:
    return {
        "executable": sys.executable,
        "prefix": sys.prefix,
        "python": ".".join(map(str, sys.version_info[:3])),
    }


def mismatches(asked: dict[str, str], read: dict[str, dict[str, str | None]]) -> list[str]:
    """'keras asked 3.12.0, runs 3.15.1' for each pin the interpreter does not run as asked."""
    return [
        f"{name} asked {version}, runs {read.get(name, {}).get('version') or 'nothing'}"
        for name, version in sorted(asked.items())
        if (read.get(name) or {}).get("version") != version
    ]


def stack_block(stack: dict[str, Any], packages: tuple[str, ...] = ()) -> dict[str, Any]:
    """The record's `stack` block in the worker: the stack's name, its pins as read back here,
    the versions of `packages` (the backend's own, frameworks/registry.py) as read back here too,
    so the releases a run measured are named on every stack, `pinned` included, and this
    interpreter. Raises RuntimeError where a pin is not what runs (a mismatch fails the run, as
    a thread count that does not hold does)."""
    from twinbench.stacks.definition import from_config

    asked = from_config(stack)
    read = versions(sorted(asked.pins))
    wrong = mismatches(asked.pins, read)
    if wrong:
        raise RuntimeError(f"stack {asked.name}: {'; '.join(wrong)}")
    return {
        "name": asked.name,
        "pins": {name: read[name]["version"] for name in sorted(read)},
        "locations": {name: read[name]["location"] for name in sorted(read)},
        "versions": {
            name: found["version"]
            for name, found in versions(sorted(packages)).items()
            if found["version"] is not None
        },
        "interpreter": interpreter(),
    }


if __name__ == "__main__":
    print(json.dumps({"versions": versions(sys.argv[1:]), "sys_path": sys.path}))
