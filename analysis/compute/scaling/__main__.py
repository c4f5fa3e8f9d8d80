"""`python -m analysis.compute.scaling <2017 logs>`: the held-out validation as Markdown."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from analysis.compute import effects, summary
from analysis.compute.scaling.validation import validate, validation_markdown
from analysis.errors import AnalysisError
from analysis.load.table import runs_table


def main(argv: Sequence[str] | None = None) -> int:
    """`python -m analysis.compute.scaling <2017 logs>`: the held-out validation as Markdown."""
    args = list(sys.argv[1:] if argv is None else argv)
    if len(args) != 1:
        print(
            "usage: python -m analysis.compute.scaling <folder with the 2017 logs>",
            file=sys.stderr,
        )
        return 2
    try:
        runs = runs_table([Path(args[0])])
        hardware = effects.hardware(summary.configs(runs, "train_time", 0.1))
        table = validate(hardware, runs)
    except AnalysisError as exc:
        print(f"analysis: error: {exc}", file=sys.stderr)
        return 2
    if table.empty:
        message = "no series was measured at every validation core count"
        print(f"analysis: error: {message}", file=sys.stderr)
        return 2
    print(validation_markdown(table))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
