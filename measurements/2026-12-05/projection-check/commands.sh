#!/bin/sh
# Issue 40: does an undecided verdict's "about N pairs in all would decide" hold on pairs it did
# not see? 2026-12-05 (analysis only, no new runs), from the repository root. Real units, pooled
# per series and shuffled (2000 seeded orders); each projection is made from the first k units
# and scored on the units after them.
D=measurements/2026-12-05/projection-check
# 1. A/A, far from the margin: native torch mlp against itself, 1 core, resident worker pairs
#    (the 2026-12-03 campaign, Zen 5): 489 units.
python -m benchmarks.diagnostics.projection_check measurements/2026-12-03/aa/aa-torch-mlp-cpus1.json \
  --json $D/aa-resident-mlp-cpus1.json > $D/aa-resident-mlp-cpus1.txt
# 2. On the margin's edge: README command 1's 2-core series of the three 2026-12-02 runs (Zen 5,
#    fresh-process pairs in turns; torch / TensorFlow about 1.03-1.05): 34 units.
python -m benchmarks.diagnostics.projection_check measurements/2026-12-02/compare/decisions-compare-1.json \
  measurements/2026-12-02/compare/decisions-compare-2.json measurements/2026-12-02/compare/decisions-compare-3.json \
  --series cpus=null --at 5 8 --json $D/compare-2cores.json > $D/compare-2cores.txt
