"""The hardware effect over this machine's deciding sweeps, each sweep one value.

One sweep's hardware line holds that sweep's minutes (twinbench/launch/screen.py
hardware_ratio): a host's phase moves the speed-up between sweeps (torch's MLP read 1.15x-1.41x
in one day on one host). Where the sweeps beside this one (its results folder) ran the same
workload and sides at the same core counts on a machine with the same fingerprint, the report's
own hardware effect over all of them (analysis/compute/effects.py: rounds paired within each
sweep, each sweep one value, stats.sessions_ratio) is one more line on the first screen: the
machine's speed-up across its phases. Halves of twelve such sweeps disagreed in 3% of splits
(docs/findings/2026-12-07-hardware-by-round.md). It lives in the CLI layer because it reads
the analysis package, which the core does not import.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from frameworks.registry import REPORT_REFERENCE
from twinbench.launch import decide

MAX_SWEEPS = 20  # the most recent deciding sweeps read: about 80 records each, 1-2 ms a record


def deciding_sweeps(sweep_dir: Path, limit: int = MAX_SWEEPS) -> list[Path]:
    """This sweep and the most recent deciding sweeps beside it (a decisions.json in each)."""
    here = Path(sweep_dir).resolve()
    beside = [
        p
        for p in here.parent.iterdir()
        if p != here and p.is_dir() and (p / decide.DECISIONS_FILE).is_file()
    ]
    beside.sort(key=lambda p: (p / decide.DECISIONS_FILE).stat().st_mtime, reverse=True)
    return [here, *beside[: limit - 1]]


def machine_line(sweep_dir: Path, all_cores: int | None) -> list[str]:
    """`over N sweeps on this machine: <side> speed-up [interval], ...` for every side of this
    sweep that at least one earlier sweep measured alike; nothing where none did, and where the
    records cannot be read, why (the line is advice; the sweep's own figures stand)."""
    from twinbench.ui.cores import count_label

    try:
        rows = _over_sweeps(deciding_sweeps(sweep_dir))
    except Exception as exc:  # unreadable history must not fail a finished sweep: said, not raised
        return [f"  over sweeps on this machine: not available ({type(exc).__name__}: {exc})"]
    if not rows:
        return []
    sweeps = min(r["speedup_sweeps"] for r in rows)
    few, most = rows[0]["reference_cpus"], rows[0]["cpus"]
    figures = ", ".join(
        f"{r['side']} {r['speedup']:.2f}x [{r['speedup_ci_low']:.2f}, {r['speedup_ci_high']:.2f}]"
        for r in rows
    )
    return [
        f"  over {sweeps} sweeps on this machine ({count_label(few, all_cores)} to "
        f"{count_label(most, all_cores)}, each sweep one value): {figures}"
    ]


def _over_sweeps(folders: list[Path]) -> list[dict[str, Any]]:
    """The hardware rows of this sweep's sides (folders[0]) over all `folders`, where two or more
    sweeps gave a value."""
    from analysis.compute import effects, summary
    from analysis.load.table import runs_table

    runs = runs_table(folders)
    mine = runs[runs["sweep"] == str(folders[0])]
    if mine.empty or len(folders) < 2:
        return []
    sides = mine[["machine", "workload", "backend", "settings_label"]].drop_duplicates()
    hardware = effects.hardware(summary.configs(runs, "steady_step"))
    if hardware.empty:
        return []
    chosen = hardware.merge(sides, on=["machine", "workload", "backend", "settings_label"])
    top = chosen[chosen["cpus"] == chosen["cpus"].max()]
    top = top[top["speedup_sweeps"] >= 2]
    several = top["backend"].nunique() < len(top)  # one backend at two settings: name both
    out = []
    top = top.assign(first=top["backend"] != REPORT_REFERENCE)  # the reference first, as above
    for _, r in top.sort_values(["first", "backend", "settings_label"]).iterrows():
        side = f"{r['backend']} {r['settings_label']}" if several else str(r["backend"])
        out.append({**r.to_dict(), "side": side})
    return out
