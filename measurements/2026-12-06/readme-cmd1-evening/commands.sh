#!/bin/sh
# Issue 40 item 3, a third time today: README command 1 five times in a row on one machine
# (2026-12-06 17:53-18:21 UTC, Zen 5 type, AMD EPYC family 25 model 17), from a clone at 6aed402
# whose certificate and noise floor were already cached (its GEMM peak too, measured at 17:46 by
# the run that checked the peak fix). Each run's screen is in screens.log and its decisions.json
# is copied here under the sweep's folder name. Run from the repository root with nothing else
# running: `sh measurements/2026-12-06/readme-cmd1-evening/commands.sh`.
for i in 1 2 3 4 5; do
  echo "=== run $i $(date -u +%T)"
  .venv/bin/python run.py +experiment=compare
  echo "=== end $i $(date -u +%T) rc=$?"
done
