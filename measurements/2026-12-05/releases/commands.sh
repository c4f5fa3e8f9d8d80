#!/bin/sh
# Issue 43: framework releases as an axis, measured. 2026-12-05 from 02:13 UTC, AMD EPYC family 25
# model 17 (AVX-512, avx512_bf16: the project's Zen 5 type), 2 vCPUs. Every run at 1 core, on
# core 1 (taskset), from a clone of a7105f9; beside it, on core 0, issue 40's A/A campaign (torch
# mlp against itself) ran the whole time, so both stacks of every comparison shared one steady
# neighbour. Each sweep interleaves its repeats (repeat 1 of every job, then repeat 2, ...), so a
# release's three runs and its neighbour's are spread over the same half hour.
#
# Stacks (conf/stack/): keras-3.12, keras-3.13 and pinned (Keras 3.15.1) under the project's
# torch 2.13.0 and TensorFlow 2.21.0; jax-0.9 (jax/jaxlib 0.9.2) and pinned (0.10.2) under Keras
# 3.15.1. Build times (cold, empty cache; then cached):
twinbench stacks build keras-3.12    # 2.5 s cold (5.7 MB), 1.7 s cached (the CLI's own start)
twinbench stacks build keras-3.13    # 2.4 s cold (5.8 MB)
twinbench stacks build jax-0.9       # 3.0 s cold (336 MB), 1.7 s cached
twinbench stacks list                # 3 environments, 347 MB of the 4096 MB cap
# Keras releases on torch and on TensorFlow (72 runs):
taskset -c 1 python run.py -m stack=keras-3.12,keras-3.13,pinned backend=keras_torch,tensorflow \
  model=mlp,cnn,gpt,imdb_transformer cpus=1 repeats=3 epochs=2 max_steps=40 \
  measure.kernel_probe=true measure.lock_file=/tmp/rel/release.lock hydra.sweep.dir=results/releases-keras
# JAX releases under Keras on JAX (24 runs):
taskset -c 1 python run.py -m stack=jax-0.9,pinned backend=keras_jax \
  model=mlp,cnn,gpt,imdb_transformer cpus=1 repeats=3 epochs=2 max_steps=40 \
  measure.kernel_probe=true measure.lock_file=/tmp/rel/release.lock hydra.sweep.dir=results/releases-jax
# The release history (report.html's section and report_files/tables/release_history.csv):
python -m analysis results/releases-keras results/releases-jax --out results/releases-report
