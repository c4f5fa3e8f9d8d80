#!/usr/bin/env bash
# Where the second core goes on the MNIST MLP (2026-12-07, Intel host, 2 vCPU): per-layer
# profiles at 1 and 2 cores, TensorFlow and torch; the same at 2 cores with one inter-op thread;
# then the GEMM at the model's own shapes, one thread and two, three times.
set -u
OUT=${OUT:-/tmp/s66/prof}
python run.py -m backend=torch,tensorflow model=mlp cpus=1,null profile=true epochs=1 \
  max_steps=110 repeats=3 report=false hydra.sweep.dir="$OUT/sweep"
python run.py -m backend=tensorflow,torch model=mlp cpus=null interop_threads=1 profile=true \
  epochs=1 max_steps=110 repeats=3 report=false hydra.sweep.dir="$OUT/interop1"
python -m analysis "$OUT/sweep" --out "$OUT/report"   # "where the cores go"
for i in 1 2 3; do python -m benchmarks.diagnostics.gemm_threads > "gemm_threads-$i.txt"; done
