#!/bin/sh
# Issue 43: the A/A stack of the JAX releases. 2026-12-05 17:51-18:03 UTC, AMD EPYC family 25
# model 17 (Zen 5: AVX-512, avx512_bf16), 2 vCPUs, nothing else running. jax-0.10 is the pinned
# JAX (0.10.2) built as an overlay like jax-0.9: against `pinned` it measures what the overlay
# environment alone changes, against jax-0.9 the release with the environment held equal.
python -m twinbench.cli stacks build jax-0.10      # 2.0 s, 0 MB: installs nothing
python run.py -m stack=jax-0.9,jax-0.10,pinned backend=keras_jax model=mlp,cnn,gpt cpus=1 \
  repeats=3 epochs=2 max_steps=40 report=false hydra.sweep.dir=/tmp/aa43j
python -m analysis /tmp/aa43j --out /tmp/aa43jr   # report_files/tables/release_history.csv, here
