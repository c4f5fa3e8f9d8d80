#!/bin/bash
# Three more interleaved pairs (default, then no mmap) of the rows ab.sh moved most, and two
# TensorFlow rows as controls; same settings and checkout as ab.sh.
#   bash measurements/2026-12-07/allocator-page-faults/repeats.sh > repeats.txt
set -uo pipefail
out=$(mktemp -d)
echo "# rep backend model arm steady_step_median_s"
for rep in 1 2 3; do
  for row in torch:fasttext torch:charlstm torch:textgen torch:cnn tensorflow:fasttext tensorflow:textgen; do
    backend=${row%%:*}; model=${row##*:}
    for arm in default no_mmap; do
      env=(); [ "$arm" = no_mmap ] && env=(MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=68719476736)
      rm -rf "$out/run"
      env "${env[@]}" .venv/bin/python run.py backend=$backend model=$model cpus=1 epochs=1 \
        max_steps=40 measure.peak_probe=false report=false hydra.run.dir="$out/run" >/dev/null 2>&1
      .venv/bin/python -c "import json,sys; r=json.load(open(sys.argv[1])); \
print(sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5], r['timing']['steady_step_s']['median'])" \
        "$out/run/result.json" $rep $backend $model $arm || echo "$rep $backend $model $arm failed"
    done
  done
done
rm -rf "$out"
