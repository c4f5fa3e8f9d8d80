#!/usr/bin/env bash
# backend.allocator=default against retain, one backend at a time, 1 core, in the deciding
# engine's resident worker pairs (the two settings' workers alive at once, blocks in turns).
# Run from the repository root; screens and decisions land beside this file.
set -u
here=measurements/2026-12-07/allocator-setting
out=${OUT:-/tmp/allocator-setting}
one() {  # one BACKEND MODEL SECONDS
  local name=$1-$2
  .venv/bin/python run.py +experiment=compare backend=$1 backend.allocator=default,retain \
    model=$2 cpus=1 certify=false hydra.sweeper.decision.total_seconds=$3 \
    hydra.sweep.dir=$out/$name > $here/$name.log 2>&1
  cp $out/$name/decisions.json $here/decisions-$name.json
}
one torch fasttext 300
one torch charlstm 200
one torch textgen 200
one torch cnn 200
one torch mlp 200
one tensorflow fasttext 300
one keras_torch fasttext 300
one keras_jax fasttext 300
