#!/bin/sh
# Issue 40 item 3 again: README command 1 five times in a row on one machine (2026-12-06
# 15:20-15:49 UTC, Zen 5 type, AMD EPYC family 25 model 17), from a clone at b1d7978 whose
# certificate and noise floor were already cached. Each run's screen is in screens.log and its
# decisions.json is copied here under the sweep's folder name. Run from the repository root with
# nothing else running: `sh measurements/2026-12-06/readme-cmd1-five/commands.sh`.
for i in 1 2 3 4 5; do
  echo "=== run $i $(date -u +%T)"
  /usr/bin/time -f "%e s wall" .venv/bin/python run.py +experiment=compare
done
