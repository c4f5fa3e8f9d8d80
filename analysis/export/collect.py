"""`python -m analysis collect <dirs...> --out table`: one tidy table of every run, from any
number of result directories (several machines), as Parquet and CSV.

Rows are keyed by machine fingerprint; duplicates and incompatible records are reported (see
dedupe.py). CSV floats are written with full precision (Python's shortest round-trip repr).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pandas as pd

from analysis.errors import AnalysisError
from analysis.load import table
from analysis.load.dedupe import Issues, dedupe
from analysis.load.records import UNKNOWN_MACHINE

DEFAULT_STEM = "table"  # the files' name in a folder: table.parquet + table.csv
SORT = ["machine", "source", "workload", "config_label", "repeat", "started", "path"]


@dataclass
class Collected:
    runs: pd.DataFrame
    issues: Issues
    parquet: Path
    csv: Path


def output_paths(out: Path) -> tuple[Path, Path]:
    """`table`, `table.csv` or `table.parquet` all name the pair table.parquet + table.csv; an
    existing folder gets its own table.parquet + table.csv (<folder>.parquet went beside it)."""
    out = Path(out)
    if out.is_dir():
        out = out / DEFAULT_STEM
    stem = out.with_suffix("") if out.suffix in (".csv", ".parquet") else out
    return stem.with_name(stem.name + ".parquet"), stem.with_name(stem.name + ".csv")


def collect(paths: list[Path], out: Path) -> Collected:
    parquet, csv = output_paths(out)
    try:  # before reading every record: a bad --out is refused at once, not after the work
        parquet.parent.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise AnalysisError(
            f"cannot write the table into {parquet.parent}: {exc.strerror or exc}; choose "
            "another --out"
        ) from None
    runs, issues = dedupe(table.runs_table(paths))
    runs = runs.sort_values(SORT, kind="stable", na_position="last").reset_index(drop=True)
    try:
        runs.to_parquet(parquet, index=False)
        runs.to_csv(csv, index=False)
    except OSError as exc:  # a full disk, a folder made read-only meanwhile
        raise AnalysisError(f"cannot write {parquet.parent}: {exc.strerror or exc}") from None
    return Collected(runs, issues, parquet, csv)


def summary(collected: Collected) -> str:
    runs = collected.runs
    known = runs.loc[runs["machine"] != UNKNOWN_MACHINE, "machine"].nunique()
    lines = [f"collected {len(runs)} runs from {known} machine(s):"]
    for machine, group in runs.groupby("machine", sort=True):
        ok = int((group["status"] == "ok").sum())
        lines.append(
            f"  {machine}: {len(group)} runs ({ok} ok, {len(group) - ok} failed), "
            f"{group['workload'].nunique()} workload(s), "
            f"{group['config_label'].nunique()} configuration(s)"
        )
    for _, row in runs[runs["status"] != "ok"].iterrows():
        lines.append(f"  failed: {row['workload']} {row['config_label']}: {row['error']}")
    lines += [f"  {line}" for line in collected.issues.lines()]
    lines.append(f"wrote {collected.parquet} and {collected.csv}")
    return "\n".join(lines)
