"""python -m analysis <results dirs...>: the cross-framework comparison of collected results."""

from __future__ import annotations

import sys
from pathlib import Path

from analysis.table import comparison_table, load_results


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m analysis <results dir or result.json>...", file=sys.stderr)
        return 2
    missing = [p for p in argv if not Path(p).exists()]
    if missing:
        print(f"analysis: error: no such file or directory: {', '.join(missing)}", file=sys.stderr)
        return 2
    records = load_results([Path(p) for p in argv])
    if not records:
        print(f"analysis: error: no result.json found under {', '.join(argv)}", file=sys.stderr)
        return 2
    print(comparison_table(records))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
