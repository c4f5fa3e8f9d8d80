#!/bin/sh
# Issue 43: the release axis' A/A stack. 2026-12-05 15:53-16:2x UTC, AMD EPYC family 25 model 17
# (Zen 5: AVX-512, avx512_bf16), 2 vCPUs, nothing else running. keras-3.15 is the pinned Keras
# (3.15.1) built as an overlay like keras-3.12 and keras-3.13: against `pinned` it measures what
# the overlay environment alone changes.
python -m twinbench.cli stacks build keras-3.15     # 2.8 s, 0 MB: installs nothing
python run.py -m stack=keras-3.15,pinned backend=keras_torch,tensorflow model=cnn,gpt cpus=1 \
  repeats=3 epochs=2 max_steps=40 report=false hydra.sweep.dir=/tmp/aa43
python -m analysis /tmp/aa43 --out /tmp/aa43r   # report_files/tables/release_history.csv, here
