# README command 1 once more after this stop's first-screen change (an undecided core count whose
# pairs project a budget prints the command that would decide it alone): 2026-12-06 07:20-07:26
# UTC, a clone at 9ef319f with its own .venv (install excluded), nothing else running, the Zen 5
# type. 1 core: TensorFlow faster, 1.153 [1.061, 1.254] in 10 worker pairs; all (2): undecided,
# 1.058 [0.993, 1.128] in 20, whose interval reaches the margin's edge, so no budget projects and
# no command is printed (the screen says so instead). 5 min 39 s of measuring, 5 min 52 s in all.
.venv/bin/python run.py +experiment=compare
