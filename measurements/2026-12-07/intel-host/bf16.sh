# The bfloat16 matrix of docs/findings/2026-12-03-bf16-on-bf16-units.md on the Intel host (torch and
# TensorFlow; Keras on JAX left out, its XLA ran no bf16 kernel on the AMD host): one run a cell,
# 1 core, 40 steps (10 of warm-up), each run's kernel probe and per-layer profile, the bf16 GEMM
# peak at the float32 one's size. From the repository root, on a quiet machine.
set -e
OUT=${1:-results/bf16-intel-2026-12-07}
python run.py -m backend=torch,tensorflow model=mlp,cnn,gpt,imdb_transformer \
  precision=float32,bfloat16 exec=eager cpus=1 epochs=1 max_steps=40 measure.warmup_steps=10 \
  measure.kernel_probe=true measure.peak_probe_bf16_size=2048 quiet=true report=false \
  profile=true hydra.sweep.dir=$OUT/profiled
python measurements/2026-12-03/bf16-units/tables.py $OUT > measurements/2026-12-07/intel-host/bf16-tables.md
