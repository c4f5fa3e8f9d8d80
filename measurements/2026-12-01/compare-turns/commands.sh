# docs/findings/2026-12-01-pairs-in-turns.md: README command 1 with pairs taking turns, and the
# A/A noise floor measured the same way, on the idle 2-core machine (nothing else running).
# 1. README command 1, as the README gives it (the venv already set up):
date -u; .venv/bin/python run.py +experiment=compare hydra.sweep.dir=results/compare-turns-1 2>&1 | tee measurements/2026-12-01/compare-turns/compare-1.log
date -u; cp results/compare-turns-1/decisions.json measurements/2026-12-01/compare-turns/decisions-1.json
# 2. The A/A noise floor of the same workload (mlp, 2 epochs of 100 steps) at 1 and 2 cores:
.venv/bin/python -m twinbench.cli.calibrate --model mlp --cpus 1 --max-steps 100 --pairs 6 2>&1 | tee measurements/2026-12-01/compare-turns/calibrate-cpus1.log
.venv/bin/python -m twinbench.cli.calibrate --model mlp --max-steps 100 --pairs 6 2>&1 | tee measurements/2026-12-01/compare-turns/calibrate-cpus2.log
# 3. README command 1 again: now it states the floor before its first pair.
date -u; .venv/bin/python run.py +experiment=compare hydra.sweep.dir=results/compare-turns-2 2>&1 | tee measurements/2026-12-01/compare-turns/compare-2.log
date -u; cp results/compare-turns-2/decisions.json measurements/2026-12-01/compare-turns/decisions-2.json
