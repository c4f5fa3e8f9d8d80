"""Where a deciding sweep's decisions lie among the inputs: every decisions.json in or below them
(twinbench/launch/decide.py writes one per sweep), and the design they were decided under."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

FILE = "decisions.json"  # the name twinbench/launch/decide.py writes (the core is not imported)


def files(inputs: list[Path]) -> list[Path]:
    """Every decisions.json in or below the inputs (a results folder holds many sweeps), in the
    order found, each once."""
    found: dict[Path, None] = {}
    for given in inputs:
        folder = Path(given)
        if not folder.is_dir():
            continue
        for path in [folder / FILE, *sorted(folder.rglob(FILE))]:
            if path.is_file():
                found.setdefault(path.resolve(), None)
    return list(found)


def designs(inputs: list[Path]) -> list[dict[str, Any]]:
    """The `design` block of each readable decisions file among the inputs (an unreadable one is
    left out here; the decisions section names it)."""
    out = []
    for path in files(inputs):
        try:
            design = json.loads(path.read_text())["design"]
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if isinstance(design, dict):
            out.append(design)
    return out
