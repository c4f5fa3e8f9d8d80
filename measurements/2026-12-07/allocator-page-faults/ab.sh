#!/bin/bash
# Each workload's steady step under glibc's default malloc and with its mmap turned off
# (MALLOC_MMAP_MAX_=0, MALLOC_TRIM_THRESHOLD_ high: large blocks stay in the heap and are reused
# without being faulted in again), interleaved, torch and Keras on TensorFlow, 1 core.
# Run from the root of a checkout from before these variables were refused (4146388), e.g.
#   bash measurements/2026-12-07/allocator-page-faults/ab.sh > ab.txt
set -uo pipefail
source "$(dirname "$0")/one_run.sh"
out=$(mktemp -d)
echo "# rep backend model arm steady_step_median_s"
for model in mlp tl_mlp cnn cifar10_cnn bilstm charlstm textgen fasttext imdb_transformer gpt; do
  for backend in torch tensorflow; do
    for arm in default no_mmap; do
      one_run 1 $backend $model $arm
    done
  done
done
rm -rf "$out"
