#!/bin/bash
# Three more interleaved pairs (default, then no mmap) of the rows ab.sh moved most, and two
# TensorFlow rows as controls; same settings and checkout as ab.sh.
#   bash measurements/2026-12-07/allocator-page-faults/repeats.sh > repeats.txt
set -uo pipefail
source "$(dirname "$0")/one_run.sh"
out=$(mktemp -d)
echo "# rep backend model arm steady_step_median_s"
for rep in 1 2 3; do
  for row in torch:fasttext torch:charlstm torch:textgen torch:cnn tensorflow:fasttext tensorflow:textgen; do
    backend=${row%%:*}; model=${row##*:}
    for arm in default no_mmap; do
      one_run $rep $backend $model $arm
    done
  done
done
rm -rf "$out"
