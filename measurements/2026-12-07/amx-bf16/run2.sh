#!/bin/sh
# The torch and TensorFlow half of run.sh again, on a quiet machine: its gpt cells (jobs 9-12)
# ran while targeted tests took both cores at nice 19, so every cell gets a second run to set
# beside the first (tables-run2.md).
set -e
OUT=${1:-results/amx-bf16-2026-12-07-run2}
HERE=measurements/2026-12-07/amx-bf16
python run.py -m backend=torch,tensorflow model=mlp,cnn,gpt,imdb_transformer \
  precision=float32,bfloat16 exec=eager cpus=1 epochs=1 max_steps=40 measure.warmup_steps=10 \
  measure.kernel_probe=true measure.peak_probe_bf16_size=2048 quiet=true report=false \
  profile=true hydra.sweep.dir=$OUT/profiled
python measurements/2026-12-03/bf16-units/tables.py $OUT > $HERE/tables-run2.md
