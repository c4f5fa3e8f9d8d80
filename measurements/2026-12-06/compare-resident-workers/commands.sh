# README command 1 on this stop's final code (4867a42: the hardware lines of a resident sweep count
# resident workers), 2026-12-06 09:28-09:34 UTC, a clone with its own .venv (install excluded),
# nothing else running, the Zen 5 type. 1 core: TensorFlow faster, 1.173 [1.052, 1.308] in 7
# worker pairs; all (2): undecided, 1.056 [1.016, 1.098] in 26, TensorFlow faster by at least
# 1.6%, its interval reaching the margin's edge (no budget projects, no command printed). The
# seventh run today, and the sixth with 2 cores undecided. 5 min 31 s of measuring, 5 min 44 s in
# all.
.venv/bin/python run.py +experiment=compare
