#!/bin/sh
# Issue 40 item 3 after midnight: README command 1 five times in a row on one machine
# (2026-12-07 01:26-01:57 UTC, Zen 5 type, AMD EPYC family 25 model 17), run 1 exactly as the
# README writes it on a fresh clone of aecda28 (ml_dtypes pinned to 0.6.0; the certificate was
# made again, the code it covers having changed), runs 2-5 in the same clone. Each run's screen
# is in screens.log and its decisions.json is copied here under the sweep's folder name. From a
# fresh clone's root, with nothing else running: `sh measurements/2026-12-07/readme-cmd1/commands.sh`.
python3 -m venv .venv && .venv/bin/pip install -q -r requirements.txt
for i in 1 2 3 4 5; do
  echo "=== run $i $(date -u +%T)"
  .venv/bin/python run.py +experiment=compare
  echo "=== end $i $(date -u +%T) rc=$?"
done
