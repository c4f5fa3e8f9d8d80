#!/usr/bin/env bash
# Held-out sweeps for the hardware effect paired by round (2026-12-07, Intel host, 2 vCPU):
# README command 1 as it comes, five times in a row, nothing else running. Run from a clone of
# the repository at the commit named in the finding; each sweep folder is kept whole.
set -u
OUT=${OUT:-/tmp/hw-sweeps}
mkdir -p "$OUT"
for i in 1 2 3 4 5; do
  .venv/bin/python run.py +experiment=compare hydra.sweep.dir="$OUT/compare-$i" \
    > "$OUT/compare-$i.log" 2>&1
  echo "compare-$i exit $?" >> "$OUT/exits.txt"
done
