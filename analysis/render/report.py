"""report.html: one self-contained page (figures embedded as base64 PNG, inline CSS, no network),
with every figure also saved as PNG and every table as CSV (full precision) beside it.

    <out>/report.html
    <out>/report_files/figures/*.png
    <out>/report_files/tables/*.csv

The sections, and their order, are analysis/render/contents.py's; each is written by its own
module (analysis/render/sections/, and the few that live beside what they show).
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from analysis.compute import pipeline
from analysis.compute.pipeline import Analysis
from analysis.errors import AnalysisError
from analysis.load.table import runs_table
from analysis.render import contents
from analysis.render.htmlkit import render
from analysis.render.page import FILES, Page


def _page(an: Analysis, page: Page) -> str:
    """The whole document: header, links to the sections present (no dead link), sections."""
    runs, present = an.runs, page.anchors()
    return render(
        "report.html.j2",
        when=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        runs=len(runs),
        ok=int((runs["status"] == "ok").sum()),
        machines=runs["machine"].nunique(),
        workloads=runs["workload"].nunique(),
        metric_name=an.metric_name,
        metric_definition=an.metric_definition,
        inputs=", ".join(str(p) for p in an.options.inputs),
        nav=contents.nav(present, contents.SECTIONS),
        issues=an.issues.lines(),
        unstable_width=f"{an.options.unstable_width:.0%}",
        not_measured=page.not_measured,
        parts=page.parts,
    )


def write(an: Analysis, out: Path) -> Path:
    """Write report.html and its files under `out`; returns the report's path.

    Everything is written into a staging folder inside `out` first and moved into place at the
    end, so a report stopped half-way (Ctrl-C, a full disk) leaves the earlier report as it was
    and no half-written files."""
    out = Path(out)
    try:
        out.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".report-staging-", dir=out))
    except OSError as exc:
        raise AnalysisError(
            f"cannot write the report into {out}: {exc.strerror or exc}; choose a folder with --out"
        ) from None
    try:
        for sub in ("figures", "tables"):
            (staging / FILES / sub).mkdir(parents=True)
        page = Page(staging)
        for section in contents.SECTIONS:
            section.write(page, an)
        (staging / "report.html").write_text(_page(an, page), encoding="utf-8")
        (staging / FILES / "manifest.json").write_text(
            json.dumps(
                {
                    "figures": [p.relative_to(staging).as_posix() for p in page.figures],
                    "tables": [p.relative_to(staging).as_posix() for p in page.tables],
                },
                indent=1,
            )
        )
        _move_into_place(staging, out)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return out / "report.html"


def _move_into_place(staging: Path, out: Path) -> None:
    """The new files replace the old: the files folder by two renames, the page by one."""
    old = out / FILES
    if old.exists():
        old.rename(staging / f"{FILES}.old")  # removed with the staging folder
    (staging / FILES).rename(old)
    os.replace(staging / "report.html", out / "report.html")


def after_sweep(sweep_dir: Path) -> str:
    """For the sweep-end callback: write the sweep's report; one line saying where, or why not.

    Never raises for bad input: the sweep has finished, and its exit status belongs to its
    runs, not to the report.
    """
    try:
        options = pipeline.Options(inputs=[Path(sweep_dir)], strict_baseline=False)
        path = write(pipeline.analyze(runs_table([Path(sweep_dir)]), options), Path(sweep_dir))
    except AnalysisError as exc:
        return f"report not written: {exc}"
    except Exception as exc:  # a report bug must not cost the user the sweep's own summary
        return f"report not written: {type(exc).__name__}: {exc}"
    return f"report: {path}"
