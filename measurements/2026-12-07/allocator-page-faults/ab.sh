#!/bin/bash
# Each workload's steady step under glibc's default malloc and with its mmap turned off
# (MALLOC_MMAP_MAX_=0, MALLOC_TRIM_THRESHOLD_ high: large blocks stay in the heap and are reused
# without being faulted in again), interleaved, torch and Keras on TensorFlow, 1 core.
# Run from the root of a checkout from before these variables were refused (4146388), e.g.
#   bash measurements/2026-12-07/allocator-page-faults/ab.sh > ab.txt
set -uo pipefail
out=$(mktemp -d)
echo "# backend model arm steady_step_median_s"
for model in mlp tl_mlp cnn cifar10_cnn bilstm charlstm textgen fasttext imdb_transformer gpt; do
  for backend in torch tensorflow; do
    for arm in default no_mmap; do
      env=(); [ "$arm" = no_mmap ] && env=(MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=68719476736)
      rm -rf "$out/run"
      env "${env[@]}" .venv/bin/python run.py backend=$backend model=$model cpus=1 epochs=1 \
        max_steps=40 measure.peak_probe=false report=false hydra.run.dir="$out/run" >/dev/null 2>&1
      .venv/bin/python -c "import json,sys; r=json.load(open(sys.argv[1])); \
print(sys.argv[2], sys.argv[3], sys.argv[4], r['timing']['steady_step_s']['median'])" \
        "$out/run/result.json" $backend $model $arm || echo "$backend $model $arm failed"
    done
  done
done
rm -rf "$out"
