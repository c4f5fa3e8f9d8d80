"""The decided comparisons of a deciding sweep (+experiment=compare): per series the outcome,
the time ratio with its confidence-sequence interval, the pairs, what ended it, the CPU-time ratio
beside it and the machine's noise floor, read from the sweep's decisions.json
(twinbench/launch/decide.py writes it)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pandas as pd

from analysis.compute.pipeline import Analysis
from analysis.load import decision_files
from analysis.load.decision_files import designs, files
from analysis.render.htmlkit import Col, esc, table_html
from analysis.render.page import Page, Section
from twinbench.sequential import Decision, Design, decide_sequence
from twinbench.ui.cores import cores_label

ID = "decisions"
FILE = decision_files.FILE  # the file's name, as the tests and callers read it here


def _sweep_runs(runs: pd.DataFrame | None, sweep: Path) -> tuple[str, int | None]:
    """The workloads of the runs in a sweep's folder and the most cores they ran on (what
    `cpus=null` meant there): ('', None) where the runs are not among the inputs."""
    if runs is None or runs.empty or "sweep" not in runs:
        return "", None
    named = runs["sweep"].dropna().unique()
    mine = [s for s in named if Path(str(s)).resolve() == sweep]
    inside = runs[runs["sweep"].isin(mine)]
    if inside.empty:
        return "", None
    cores = pd.to_numeric(inside["cpus"], errors="coerce").max()
    workloads = ", ".join(sorted({str(w) for w in inside["workload"].dropna()}))
    return workloads, (int(cores) if pd.notna(cores) else None)


def unreadable(inputs: list[Path]) -> list[str]:
    """A line for each decisions.json in or below the inputs that cannot be read (cut short by
    a full disk, or edited): the analysis leaves it out and says so."""
    out = []
    for path in files(inputs):
        try:
            _rows_of(path, None)
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            out.append(f"{path} left out: not a readable decisions file ({type(exc).__name__})")
    return out


def rows(inputs: list[Path], runs: pd.DataFrame | None = None) -> list[dict[str, Any]]:
    """One row per decided series in the decisions.json files in or below the inputs, each
    naming its sweep (the folder), the workloads of its runs among `runs` and its core count
    as people say it. A file that cannot be read is left out (unreadable() names it)."""
    out = []
    for path in files(inputs):
        try:
            out += _rows_of(path, runs)
        except (ValueError, KeyError, TypeError, AttributeError):
            continue
    return out


def _rows_of(path: Path, runs: pd.DataFrame | None) -> list[dict[str, Any]]:
    body = json.loads(path.read_text())
    design = Design(**{"pairing": "sequential", **body["design"]})  # older files: no pairing
    workloads, all_cores = _sweep_runs(runs, path.parent)
    out = []
    for s in body["series"]:
        if s["decision"] is None:
            continue
        d = Decision(**s["decision"])
        other = "cpu" if d.measure == "wall" else "wall"
        beside = s[f"{other}_ratios"][: d.pairs]
        o = decide_sequence(beside, design, d.stopped_by) if beside else None
        out.append(
            {
                "sweep": path.parent.name,
                "workloads": workloads,
                "series": s["series"],
                "cores": cores_label(s["series"], all_cores),
                "compared": f"{s['a']} / {s['b']}",
                "outcome": d.verdict(s["a"], s["b"]),
                "kind": {"a_faster": f"{s['a']} faster", "b_faster": f"{s['b']} faster"}.get(
                    d.outcome, d.outcome if d.outcome == "equivalent" else "undecided"
                ),
                "interval": d.interval(),
                "ratio": d.ratio,
                "measure": d.measure,
                "pairs": d.pairs,
                "stopped_by": d.stopped_by,
                "beside": "-" if o is None else f"{other}: {o.interval()}",
                "noise_floor": s.get("noise_floor") or "not calibrated",
                "pairing": design.described()["name"],
                "leaves_out": design.described()["leaves_out"],
            }
        )
    return out


def write(page: Page, an: Analysis) -> None:
    found = rows(an.options.inputs, an.runs)
    if not found:
        return
    page.add(f'<h2 id="{ID}">Decided comparisons</h2>')
    page.add(
        "<p>Each series was measured pair by pair and stopped once its 95% confidence sequence "
        "on the mean log time ratio decided (faster beyond the margin, or equivalent within it) "
        f"or its budget ran out. Margin: +-{esc(f'{_margin(an):.0%}')}. One row per sweep: "
        "sweeps of the same comparison are not pooled, since a host's phase moves a whole "
        "session (the framework effect's intervals take each sweep as one value).</p>"
    )
    df = pd.DataFrame(found)
    page.add(
        table_html(
            df,
            [
                Col("sweep", "sweep"),
                Col("workloads", "workload"),
                Col("cores", "cores"),
                Col("compared", "A / B"),
                Col("outcome", "outcome"),
                Col("interval", "ratio A/B and interval"),
                Col("measure", "decided on"),
                Col("pairs", "pairs", "g"),
                Col("stopped_by", "ended by"),
                Col("pairing", "design"),
                Col("leaves_out", "leaves out"),
                Col("beside", "other measure, same pairs"),
                Col("noise_floor", "noise floor"),
            ],
        )
    )
    page.csv(df, "decisions")


def _margin(an: Analysis) -> float:
    found = [d["margin"] for d in designs(an.options.inputs) if "margin" in d]
    try:
        return float(found[0]) if found else float("nan")
    except (ValueError, TypeError):
        return float("nan")


SECTION = Section(ID, "decisions", write)
