#!/bin/sh
# Issue 42 item 7: bfloat16 on a CPU with bfloat16 units (avx512_bf16). From the repository root,
# on a quiet machine; one run a cell, 1 core, 40 steps (10 left out as warm-up), each run's
# kernel probe; torch and TensorFlow also profile 10 steps per layer after the timed ones (Keras
# on JAX has no per-layer profiler here). The bfloat16 GEMM peak is probed at the float32 one's
# size (2048), so each cell's GEMM speed-up compares like with like. Arguments: the sweep root,
# then where the tables go (another host's run keeps this one's tables).
set -e
OUT=${1:-results/bf16-units-2026-12-03}
COMMON="model=mlp,cnn,gpt,imdb_transformer precision=float32,bfloat16 exec=eager cpus=1
  epochs=1 max_steps=40 measure.warmup_steps=10 measure.kernel_probe=true
  measure.peak_probe_bf16_size=2048 quiet=true report=false"
python run.py -m backend=torch,tensorflow $COMMON profile=true hydra.sweep.dir=$OUT/profiled
python run.py -m backend=keras_jax $COMMON hydra.sweep.dir=$OUT/keras_jax
python -m analysis $OUT/profiled $OUT/keras_jax --out $OUT/report
python measurements/2026-12-03/bf16-units/tables.py $OUT > ${2:-measurements/2026-12-03/bf16-units/tables.md}
