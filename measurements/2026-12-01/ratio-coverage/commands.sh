#!/usr/bin/env bash
# The commands behind docs/findings/2026-12-01-ratio-interval-coverage.md, from the repository
# root. No new runs: the A/A groups are repeats already on this machine (the sweeps of
# README command 1 in /tmp/cmp1 and /tmp/cmp3, 2026-12-01; the measurement files of 2026-11-30).
set -euo pipefail
OUT=measurements/2026-12-01/ratio-coverage
python -m benchmarks.diagnostics.ratio_coverage collect $OUT/aa-groups.json \
    /tmp/cmp1/sweep /tmp/cmp3/sweep /work/main/results/sweeps \
    measurements/2026-11-30/sweeps.json measurements/2026-11-30/outside-*.json \
    measurements/2026-11-30/bare-*.json measurements/2026-11-30/third-*.json \
    measurements/2026-11-30/rerun-outside-bilstm-tf.json \
    measurements/2026-11-30/recheck-outside-bilstm-tf-4pairs.json
python -m benchmarks.diagnostics.ratio_coverage report $OUT/aa-groups.json --simulate \
    > $OUT/coverage.md
python -m pytest tests/test_ratio_coverage.py -q
