#!/bin/sh
# Issue 42 item 7 on a host whose flags show AMX (amx_tile, amx_bf16) beside avx512_bf16: the
# bfloat16 matrix of docs/findings/2026-12-03-bf16-on-bf16-units.md, unchanged. From the
# repository root, on a quiet machine; one run a cell, 1 core, 40 steps (10 of warm-up), each
# run's kernel probe, per-layer profile for torch and TensorFlow, the bfloat16 GEMM probed at the
# float32 one's size.
set -e
OUT=${1:-results/amx-bf16-2026-12-07}
HERE=measurements/2026-12-07/amx-bf16
COMMON="model=mlp,cnn,gpt,imdb_transformer precision=float32,bfloat16 exec=eager cpus=1
  epochs=1 max_steps=40 measure.warmup_steps=10 measure.kernel_probe=true
  measure.peak_probe_bf16_size=2048 quiet=true report=false"
python run.py -m backend=torch,tensorflow $COMMON profile=true hydra.sweep.dir=$OUT/profiled
python run.py -m backend=keras_jax $COMMON hydra.sweep.dir=$OUT/keras_jax
python -m analysis $OUT/profiled $OUT/keras_jax --out $OUT/report
python measurements/2026-12-03/bf16-units/tables.py $OUT > $HERE/tables.md
