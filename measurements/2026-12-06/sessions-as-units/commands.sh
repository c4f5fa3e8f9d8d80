#!/usr/bin/env bash
# 2026-12-06 evening, Zen 5 (AMD EPYC family 25 model 17): the day's fourteen README command 1
# sweeps (results/sweeps of the measurement clone, 02:43-16:36 UTC), read as a user reads them,
# and the held-out check of docs/findings/2026-12-06-sessions-as-units.md.
set -euo pipefail
python -m analysis results/sweeps
python -m benchmarks.diagnostics.sessions_held_out results/sweeps \
  --save measurements/2026-12-06/sessions-as-units/pairs.json
