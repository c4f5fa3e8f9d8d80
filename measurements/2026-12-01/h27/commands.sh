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
