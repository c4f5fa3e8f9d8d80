#!/usr/bin/env bash
# The exact commands behind docs/findings/2026-12-01-sequential-decisions.md and
# docs/findings/2026-12-01-scaling-coverage.md, from the repository root.
# LOGS: the folder holding the 2017 benchmark's logs/ (set it before running).
set -euo pipefail
python -c "
import numpy as np, tests.test_sequential as t
from twinbench.sequential import Design, first_decisions
d = Design(margin=0.05, alpha=0.05, min_pairs=2, max_pairs=40, max_seconds=None)
for effect in (0.0, 0.05, 0.10, 0.20):
    outcome, at = first_decisions(t._log_ratios(effect), d)
    rates = np.bincount(outcome, minlength=4) / t.REPS
    print(f'{effect:.2f}', ' '.join(f'{r:.4f}' for r in rates), int(np.median(at[at > 0])) if (at > 0).any() else '-')
" > measurements/2026-12-01/h27/sequential-simulation.txt
python -m analysis.compute.scaling.coverage "$LOGS" > measurements/2026-12-01/h27/scaling-coverage.md
# README command 1 on the shared 2-core machine (load average about 7, four other sessions
# queueing on the measurement lock); stopped by the timeout after 25 minutes.
timeout 1500 python run.py +experiment=compare hydra.sweep.dir=results/sweeps/h27-compare
cp results/sweeps/h27-compare/decisions.json measurements/2026-12-01/h27/compare-decisions.json
