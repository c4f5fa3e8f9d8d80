# docs/findings/2026-12-01-precision-and-exec.md: the {float32, bfloat16} x {eager, compiled}
# matrix for mlp on native torch and Keras on JAX, one interleaved sweep, this 2-core Zen 3 (no
# avx512_bf16: bfloat16 runs need allow_emulated_bf16=true and are flagged).
python run.py -m model=mlp backend=torch,keras_jax precision=float32,bfloat16 exec=eager,compiled repeats=2 \
  allow_emulated_bf16=true epochs=1 max_steps=40 measure.warmup_steps=5 measure.peak_probe=false \
  quiet=true hydra.sweep.dir=measurements/2026-12-01/precision-exec
python -m analysis measurements/2026-12-01/precision-exec --out /tmp/precision-exec-report
cp /tmp/precision-exec-report/report_files/tables/precision_exec.csv measurements/2026-12-01/precision-exec-matrix.csv
# The bfloat16 / float32 GEMM per library (the peak probe's own code, size 512, 5 repeats):
for lib in torch tensorflow jax; do for p in float32 bfloat16; do for n in 512; do
  python -m twinbench.measure.peak probe $lib $n 5 0.2 $p
done; done; done > measurements/2026-12-01/precision-gemm.jsonl
