"""The framework table's paired verdict (analysis/compute/effects.py: the exact interval of the
median of interleaved pairs' ratios, twinbench.stats.paired_ratio, read at the decision margin by
analysis/compute/outcome.py) on A/A pairs of real runs: runs of one configuration, in the order
they ran, taken two by two as a pair (run 2i over run 2i+1), then the first k pairs of a group
as one table row. Both halves ran the same thing, so any "faster" is a false decision. Groups:
measurements/2026-12-01/ratio-coverage/aa-groups.json (96 groups of 4-40 real runs).

    python measurements/2026-12-07/analysis-margin/paired_aa.py [aa-groups.json]
"""

import json
import sys
from collections import Counter

from analysis.compute import outcome
from twinbench import stats

path = sys.argv[1] if len(sys.argv) > 1 else "measurements/2026-12-01/ratio-coverage/aa-groups.json"
with open(path) as f:
    groups = json.load(f)["groups"]
print("pairs a row | rows | faster | equivalent | undecided | false share")
for k in (2, 3, 4, 5, 6, 8, 10):
    said = Counter()
    for g in groups:
        v = g["values"]
        if len(v) < 2 * k:
            continue
        s = stats.paired_ratio(v[0 : 2 * k : 2], v[1 : 2 * k : 2])
        found = outcome.of_ratio(s.ci_low, s.ci_high)
        said["faster" if found in (outcome.A_FASTER, outcome.B_FASTER) else found] += 1
    rows = sum(said.values())
    if rows:
        false = said["faster"] / rows
        print(
            f"{k:11d} | {rows:4d} | {said['faster']:6d} | {said[outcome.EQUIVALENT]:10d} | "
            f"{said[outcome.UNDECIDED] + said[outcome.NONE]:9d} | {false:.3f}"
        )
