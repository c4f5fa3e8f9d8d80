"""Per row of two speed-table files (the same table under glibc's default allocator and under
`retain`): the units' spread (sd of their log ratios twinbench / other side), the units taken,
the seconds they took and the decision. Prints a markdown table.

    python measurements/2026-12-07/bare-allocator/spread.py <default.json> <retain.json>
"""

import json
import math
import statistics
import sys


def rows(path):
    with open(path) as f:
        return {(r["backend"], r["model"]): r for r in json.load(f)["results"]}


def cells(r):
    if r is None:
        return "not measured", ""
    logs = [math.log(a / b) for a, b in zip(r["a_epoch_s"], r["b_epoch_s"], strict=True)]
    sd = statistics.stdev(logs) if len(logs) > 1 else float("nan")
    d = r["decision"]
    outcome = d["outcome"].replace("a_faster", "twinbench faster").replace("b_faster", "SLOWER")
    return (
        f"{sd:.3f} | {d['pairs']} | {d['elapsed_s'] / 60:.1f}",
        f"{d['ratio']:.3f} [{d['ratio_low']:.3f}, {d['ratio_high']:.3f}] {outcome}",
    )


default, retain = rows(sys.argv[1]), rows(sys.argv[2])
HEAD = "sd | units | min | decision"
print(f"| backend | model | default: {HEAD} | retain: {HEAD} |")
print("|---|---|---:|---:|---:|---|---:|---:|---:|---|")
for key in sorted(set(default) | set(retain)):
    a, b = cells(default.get(key)), cells(retain.get(key))
    print(f"| {key[0]} | {key[1]} | {a[0]} | {a[1]} | {b[0]} | {b[1]} |")
