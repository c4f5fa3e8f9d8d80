#!/bin/sh
# Issue 40 item 3 at night: README command 1 five times in a row on one machine (2026-12-06
# 21:34-21:59 UTC, Zen 5 type, AMD EPYC family 25 model 17), from a clone at 0509b18 (workers
# leave without the interpreter's teardown) whose certificate, noise floor and GEMM peak were
# already cached. Each run's screen is in screens.log and its decisions.json is copied here under
# the sweep's folder name. Run from the repository root with nothing else running:
# `sh measurements/2026-12-06/readme-cmd1-night/commands.sh`.
for i in 1 2 3 4 5; do
  echo "=== run $i $(date -u +%T)"
  .venv/bin/python run.py +experiment=compare
  echo "=== end $i $(date -u +%T) rc=$?"
done
