"""Units, their spread and their cost in a speed table's outside-code rows, to compare hosts:
per row the sd of the units' log ratios (twinbench's step over the other side's, each unit's
figures as the table's json holds them), and the seconds a unit took (a decision's elapsed
seconds over its units). Prints one line per file.

    python measurements/2026-12-07/speed-table-intel/units.py <outside.json> [...]
"""

import json
import math
import statistics
import sys

for path in sys.argv[1:]:
    with open(path) as f:
        results = json.load(f)["results"]
    sds, seconds = [], []
    for r in results:
        logs = [math.log(a / b) for a, b in zip(r["a_epoch_s"], r["b_epoch_s"], strict=True)]
        if len(logs) > 1:
            sds.append(statistics.stdev(logs))
        if r.get("decision"):
            seconds.append(r["decision"]["elapsed_s"] / max(1, r["decision"]["pairs"]))
    print(
        f"{path}: {len(results)} rows, {sum(r['pairs'] for r in results)} units, "
        f"median log sd {statistics.median(sds):.3f}, median {statistics.median(seconds):.1f} s "
        "a unit"
    )
