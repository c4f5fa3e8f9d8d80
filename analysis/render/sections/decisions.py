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
from analysis.render.htmlkit import Col, esc, table_html
from analysis.render.page import Page, Section
from twinbench.sequential import Decision, Design, decide_sequence

ID = "decisions"
FILE = "decisions.json"  # the name twinbench/launch/decide.py writes (the core is not imported)


def rows(inputs: list[Path]) -> list[dict[str, Any]]:
    """One row per decided series in the inputs' decisions.json files."""
    out = []
    for folder in inputs:
        path = Path(folder) / FILE
        if not path.is_file():
            continue
        body = json.loads(path.read_text())
        design = Design(**{"pairing": "sequential", **body["design"]})  # older files: no pairing
        for s in body["series"]:
            if s["decision"] is None:
                continue
            d = Decision(**s["decision"])
            other = "cpu" if d.measure == "wall" else "wall"
            beside = s[f"{other}_ratios"][: d.pairs]
            o = decide_sequence(beside, design, d.stopped_by) if beside else None
            out.append(
                {
                    "series": s["series"],
                    "compared": f"{s['a']} / {s['b']}",
                    "outcome": d.verdict(s["a"], s["b"]),
                    "interval": d.interval(),
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
    found = rows(an.options.inputs)
    if not found:
        return
    page.add(f'<h2 id="{ID}">Decided comparisons</h2>')
    page.add(
        "<p>Each series was measured pair by pair and stopped once its 95% confidence sequence "
        "on the mean log time ratio decided (faster beyond the margin, or equivalent within it) "
        f"or its budget ran out. Margin: +-{esc(f'{_margin(an):.0%}')}.</p>"
    )
    df = pd.DataFrame(found)
    page.add(
        table_html(
            df,
            [
                Col("series", "series"),
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
    for folder in an.options.inputs:
        path = Path(folder) / FILE
        if path.is_file():
            return float(json.loads(path.read_text())["design"]["margin"])
    return float("nan")


SECTION = Section(ID, "decisions", write)
