# docs/findings/2026-12-01-pairs-in-turns.md: README command 1 with pairs taking turns, and the A/A
# noise floor measured the same way, on the idle 2-core machine (nothing else running), 16:34-16:58 UTC.
# 1. README command 1 with turns of 20 steps, 50 ms apart (the first default):
.venv/bin/python run.py +experiment=compare hydra.sweep.dir=results/compare-turns-1          # compare-1.log
# 2. The A/A noise floor of the same workload (mlp, 2 epochs of 100 steps) at 1 and 2 cores:
.venv/bin/python -m twinbench.cli.calibrate --model mlp --cpus 1 --max-steps 100 --pairs 6     # calibrate-cpus1.log
.venv/bin/python -m twinbench.cli.calibrate --model mlp --max-steps 100 --pairs 6              # calibrate-cpus2.log
# 3. Turns of 5 steps (still 50 ms apart):
.venv/bin/python run.py +experiment=compare +hydra.sweeper.decision.turn_ticks=5 hydra.sweep.dir=results/compare-turns-t5   # compare-ticks5.log
# 4. Turns of 5 steps, 20 ms apart (conf/decision/default.yaml since then): README command 1 as it is now
.venv/bin/python run.py +experiment=compare hydra.sweep.dir=results/compare-turns-t5g20      # compare-ticks5-gap20.log
# Each sweep's decisions.json is copied here as decisions-<sweep dir>.json; the two floors as cached.
