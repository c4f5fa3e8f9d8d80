#!/bin/sh
# Issue 40 item 2 for the design README command 1 runs today: resident worker pairs of K = 20
# blocks a side, both workers of a pair starting up at once (conf/decision/default.yaml,
# conf/experiment/compare.yaml). Native torch mlp against itself on every core (2), 165 s of
# units a sequence (one core count's share of README command 1's 330 s), fresh workers every
# unit. 2026-12-06 from 03:35 UTC, AMD EPYC family 25 model 17 (the project's Zen 5 type),
# from a clone of the checkout at 6d5f60a, nothing else timing on the machine (short targeted
# tests, a numpy-only diagnostic and a diff check ran at nice 19 in its first ten minutes); stopped
# with SIGTERM after sequence 26 (SIGINT was ignored: the launching shell had started it in the
# background, which ignores SIGINT for its children). Sequences 27-40 resumed 2026-12-06
# 05:33-06:12 UTC from the same clone, on the same machine type (targeted tests at nice 19 ran
# beside its first 25 minutes, about three minutes of test processes in all): 0 false decisions in 40.
# The JSON is rewritten after every sequence; --resume goes on from it on the same machine type.
python -m twinbench.cli aa --backend torch --model mlp --sequences 40 --budget-s 165 \
  --out measurements/2026-12-06/aa-k20/aa-torch-mlp-all.json --resume
