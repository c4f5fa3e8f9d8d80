"""Paired medians of import_ab.txt: python measurements/2026-12-06/import-cost/summarise.py FILE"""

import collections
import statistics
import sys
from pathlib import Path

walls = collections.defaultdict(list)
for line in Path(sys.argv[1]).read_text().splitlines():
    if line.startswith("#"):
        continue
    _, module, backend, version, wall, *_ = line.split()
    walls[(module, backend, version)].append(float(wall))
print(
    "| import | KERAS_BACKEND | ml_dtypes 0.7.0 (median s) | 0.6.0 "
    "| paired difference: median [min, max] |"
)
print("|---|---|---:|---:|---|")
for module, backend in sorted({key[:2] for key in walls}):
    new, old = walls[(module, backend, "0.7.0")], walls[(module, backend, "0.6.0")]
    diffs = [a - b for a, b in zip(new, old, strict=True)]
    print(
        f"| `{module}` | {backend} | {statistics.median(new):.2f} | {statistics.median(old):.2f} "
        f"| {statistics.median(diffs):.2f} [{min(diffs):.2f}, {max(diffs):.2f}] |"
    )
