#!/bin/sh
# 2026-12-03 18:09-18:16 UTC, AMD EPYC with AVX-512 and avx512_bf16 (the project's Zen 5 type,
# family 25 model 17 in /proc/cpuinfo), 2 cores; a helper's installs and tests ran on core 1 at
# nice 19 (numbers, not timings, are measured here). About 6.5 minutes.
python -m twinbench.parity.spread gpt imdb_transformer --seeds 20 --json measurements/2026-12-03/parity-spread-zen5/spread-20-seeds.json
