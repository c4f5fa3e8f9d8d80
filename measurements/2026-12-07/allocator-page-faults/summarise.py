"""Per row, the steady step under glibc's defaults over the step without malloc's mmap, from
ab.txt and repeats.txt (each line: [rep] backend model arm seconds; pairs in file order):
    python measurements/2026-12-07/allocator-page-faults/summarise.py ab.txt repeats.txt"""

import collections
import statistics
import sys
from pathlib import Path

arms = collections.defaultdict(lambda: {"default": [], "no_mmap": []})
for name in sys.argv[1:]:
    for line in Path(name).read_text().splitlines():
        if line.startswith("#") or line.endswith("failed"):
            continue
        *_, backend, model, arm, seconds = line.split()
        arms[(backend, model)][arm].append(float(seconds))
print(
    "| backend | model | pairs | default step (ms, median) | without mmap "
    "| ratio: median [min, max] |"
)
print("|---|---|---:|---:|---:|---|")
for (backend, model), steps in sorted(arms.items(), key=lambda kv: (kv[0][0] != "torch", kv[0])):
    ratios = [a / b for a, b in zip(steps["default"], steps["no_mmap"], strict=True)]
    print(
        f"| {backend} | {model} | {len(ratios)} | {statistics.median(steps['default']) * 1e3:.1f} "
        f"| {statistics.median(steps['no_mmap']) * 1e3:.1f} "
        f"| {statistics.median(ratios):.2f} [{min(ratios):.2f}, {max(ratios):.2f}] |"
    )
