#!/bin/sh
# torch's imdb_transformer with the explicit attention path (scores, softmax, A V as torch ops,
# the same math: models/torch_transformer.py) in float32 and bfloat16, as run.sh's cells
# otherwise: does the step follow the attention diagnostic (attention.md)?
set -e
OUT=${1:-results/amx-bf16-2026-12-07-explicit}
python run.py -m backend=torch model=imdb_transformer model.arch.attention=explicit \
  precision=float32,bfloat16 exec=eager cpus=1 epochs=1 max_steps=40 measure.warmup_steps=10 \
  measure.kernel_probe=true measure.peak_probe_bf16_size=2048 quiet=true report=false \
  profile=true hydra.sweep.dir=$OUT/profiled
python measurements/2026-12-03/bf16-units/tables.py $OUT > measurements/2026-12-07/amx-bf16/tables-explicit.md
