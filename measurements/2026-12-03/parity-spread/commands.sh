#!/bin/sh
# 2026-12-03, AMD EPYC Zen 3 (AVX2, no AVX-512), 2 cores shared with another test run; about 11 min
python -m twinbench.parity.spread gpt imdb_transformer --seeds 20 --json measurements/2026-12-03/parity-spread/spread-20-seeds.json
