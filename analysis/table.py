"""Collect result.json files and print the framework comparison side by side."""

from __future__ import annotations

import json
import statistics
from pathlib import Path
from typing import Any

RESULT_FILE = "result.json"


def load_results(paths: list[Path]) -> list[tuple[Path, dict[str, Any]]]:
    """Every result.json under `paths` (files or directories), with where it was found."""
    found = []
    for path in map(Path, paths):
        files = [path] if path.is_file() else sorted(path.rglob(RESULT_FILE))
        for file in files:
            found.append((file, json.loads(file.read_text())))
    return found


def failures(records: list[tuple[Path, dict[str, Any]]]) -> list[tuple[Path, dict[str, Any]]]:
    return [(p, r) for p, r in records if r.get("status") != "ok"]


def comparison_table(records: list[tuple[Path, dict[str, Any]]]) -> str:
    """One row per (model, cpus): each backend's median epoch time and accuracy, and their ratio."""
    ok = [r for _, r in records if r.get("status") == "ok"]
    if not ok:
        return "no successful runs to compare"
    cells: dict[tuple[str, int], dict[str, dict[str, Any]]] = {}
    for r in ok:
        cells.setdefault((r["model"], r["cpus"]), {})[r["backend"]] = r
    backends = sorted({r["backend"] for r in ok})
    header = f"{'model':<12}{'cpus':>5}" + "".join(
        f"{b + ' epoch s':>20}{b + ' val_acc':>20}" for b in backends
    )
    if len(backends) == 2:
        header += f"{backends[0] + '/' + backends[1]:>22}"
    lines = [header, "-" * len(header)]
    for (model, cpus), by_backend in sorted(cells.items()):
        row, medians = f"{model:<12}{cpus:>5}", []
        for b in backends:
            r = by_backend.get(b)
            if r is None:
                row += f"{'-':>20}{'-':>20}"
                medians.append(None)
                continue
            median = statistics.median(r["epoch_times_s"])
            medians.append(median)
            row += f"{median:>20.3f}{r['history']['val_accuracy'][-1]:>20.4f}"
        if len(backends) == 2 and None not in medians:
            row += f"{medians[0] / medians[1]:>21.2f}x"
        lines.append(row)
    return "\n".join(lines)
