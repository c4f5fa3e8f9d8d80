#!/bin/sh
# Issue 44, item 4: the two checks added on Zen 5 hosts (attention alone; the dropout's handed
# tensor), run on the Zen 3's instruction set. 2026-12-05 18:03-18:10 UTC on a Zen 5 host (AMD
# EPYC family 25 model 17) with every library held to AVX2 + FMA, which is what the Zen 3 type
# runs: NOT a Zen 3 (its caches, its clock and its microcode differ; rounding does not, which
# depends on the kernels' code and thread count only). oneDNN printed `isa:Intel AVX2`, torch
# `get_cpu_capability()` AVX2. These variables are refused by `run.py` (they change what a run
# measures); the parity spread runs its stages without that check.
export ATEN_CPU_CAPABILITY=avx2 ONEDNN_MAX_CPU_ISA=AVX2 DNNL_MAX_CPU_ISA=AVX2 \
  MKL_ENABLE_INSTRUCTIONS=AVX2 XLA_FLAGS=--xla_cpu_max_isa=AVX2
python -m twinbench.parity.spread imdb_transformer gpt --seeds 20 --json spread-20-seeds.json
python -m benchmarks.diagnostics.dropout_inputs_seeds gpt imdb_transformer mlp --seeds 20  # 2 min 24 s
