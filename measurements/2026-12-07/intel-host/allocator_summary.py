"""Per workload, the default / no_mmap ratio of torch's steady step for each pair of
allocator-ab.txt (allocator.sh beside it), and their median:

    python measurements/2026-12-07/intel-host/allocator_summary.py allocator-ab.txt
"""

from __future__ import annotations

import statistics
import sys
from collections import defaultdict
from pathlib import Path


def main(path: str) -> None:
    steps: dict[tuple[str, str], dict[str, float]] = defaultdict(dict)
    for line in Path(path).read_text().splitlines():
        if line.startswith("#") or "failed" in line:
            continue
        rep, _backend, model, arm, step = line.split()
        steps[(model, rep)][arm] = float(step)
    ratios: dict[str, list[float]] = defaultdict(list)
    for (model, _rep), arms in sorted(steps.items()):
        if {"default", "no_mmap"} <= arms.keys():
            ratios[model].append(arms["default"] / arms["no_mmap"])
    for model, values in ratios.items():
        shown = ", ".join(f"{v:.2f}" for v in values)
        print(f"{model}: default / no_mmap {statistics.median(values):.2f}x [{shown}]")


if __name__ == "__main__":
    main(sys.argv[1])
