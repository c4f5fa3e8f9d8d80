#!/bin/bash
# What the record now says of each workload's training steps under glibc's defaults (the
# resources block's system_time_training_steps_s and minor_faults_training_steps): torch and
# Keras on TensorFlow, 1 core, 40 steps. From the repository root of a checkout with them:
#   bash measurements/2026-12-07/allocator-page-faults/kernel_share.sh > kernel_share.txt
set -uo pipefail
out=$(mktemp -d)
echo "# backend model steady_step_s kernel_share faults_per_step"
for model in mlp tl_mlp cnn cifar10_cnn bilstm charlstm textgen fasttext imdb_transformer gpt; do
  for backend in torch tensorflow; do
    rm -rf "$out/run"
    .venv/bin/python run.py backend=$backend model=$model cpus=1 epochs=1 max_steps=40 \
      measure.peak_probe=false report=false hydra.run.dir="$out/run" >/dev/null 2>&1
    .venv/bin/python - "$out/run/result.json" <<'PY' || echo "$backend $model failed"
import json, sys
r = json.load(open(sys.argv[1]))
used, steps = r["resources"], r["steps_per_epoch"] * len(r["epoch_times_s"])
share = used["system_time_training_steps_s"] / used["cpu_time_training_steps_s"]
print(r["backend"], r["model"], f"{r['timing']['steady_step_s']['median']:.4f}", f"{share:.3f}",
      round(used["minor_faults_training_steps"] / steps))
PY
  done
done
rm -rf "$out"
