#!/bin/sh
# The relative table's interval on held-out halves of the 27 README command 1 sweeps of 2026-12-06
# (Zen 5, AMD EPYC family 25 model 17), run at 22:50 UTC from the measurement clone's root:
PYTHONPATH=. python measurements/2026-12-06/relative-held-out/relative_held_out.py > output.txt
