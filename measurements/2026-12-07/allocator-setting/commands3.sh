#!/usr/bin/env bash
# A third alternation of README command 1 as it comes and under backend.allocator=retain
# (commands2.sh ran two), then the parity set's cost under both (parity_ab.sh).
set -u
here=measurements/2026-12-07/allocator-setting
out=${OUT:-/tmp/allocator-setting-2}
for mode in default retain; do
  .venv/bin/python run.py +experiment=compare backend.allocator=$mode \
    hydra.sweep.dir=$out/compare-$mode-3 > $here/compare-$mode-3.log 2>&1
  cp $out/compare-$mode-3/decisions.json $here/decisions-compare-$mode-3.json
done
bash $here/parity_ab.sh
