"""The README's speed table from the files benchmarks/outside.py and overhead.py write.

    python -m benchmarks.table --outside outside*.json --bare overhead*.json

One row per workload and backend, in the order of benchmarks/outside.yaml; each cell is the
median ratio twinbench / other side per epoch, its exact interval, the pairs and steps behind it
and the verdict. A row measured more than once takes the file given last. A workload missing
from the files says so: nothing is filled in by hand.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path
from typing import Any

from benchmarks import outside, pairs


def rows_of(paths: list[Path]) -> dict[tuple[str, str], dict[str, Any]]:
    """(model, backend) -> its result, the last file winning."""
    found: dict[tuple[str, str], dict[str, Any]] = {}
    for path in paths:
        try:
            results = json.loads(path.read_text())["results"]
        except (OSError, ValueError, KeyError) as exc:
            raise SystemExit(f"{path}: not a file written by --out ({exc})") from None
        for r in results:
            found[r["model"], r["backend"]] = r
    return found


def cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return "not measured"
    q = r["ratio"]
    steps = r.get("max_steps") or r.get("steps")
    length = f"{steps} steps" if steps else "full epochs"
    verdict = r["verdict"].split(":")[0].split(" (")[0].split(",")[0]
    trimmed = ", trimmed by the budget" if r.get("trimmed") else ""
    return (
        f"{q['median']:.3f} [{q['ci_low']:.3f}, {q['ci_high']:.3f}], {verdict} "
        f"({r['pairs']} pairs, {length}{trimmed})"
    )


def table(outside_rows: dict, bare_rows: dict) -> str:
    lines = [
        "| workload | backend | twinbench / outside code | twinbench / bare loop |",
        "|---|---|---|---|",
    ]
    for model in outside.MODELS:
        for backend in pairs.BACKENDS:
            key = (model, backend)
            lines.append(
                f"| {model} | {backend} | {cell(outside_rows.get(key))} | "
                f"{cell(bare_rows.get(key))} |"
            )
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--outside", nargs="*", type=Path, default=[], help="outside.py --out files")
    p.add_argument("--bare", nargs="*", type=Path, default=[], help="overhead.py --out files")
    args = p.parse_args(argv)
    if not args.outside and not args.bare:
        p.error("give --outside and/or --bare files")
    print(table(rows_of(args.outside), rows_of(args.bare)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
