# The matrix cells still missing after the transformer sweep (docs/findings/2026-12-01-precision-and-exec.md,
# "The cells that were left"): torch bilstm in bfloat16 with ATen's LSTM (backend.mkldnn=false: oneDNN
# has no bf16 LSTM on this CPU, refused up front otherwise), and Keras on torch compiled on the
# transformers (its compile passed the 300 s limit). No time limit; run at nice 19 beside a CI
# simulation, on a separate lock: speeds and compile times are loaded and say so. The script was
# stopped at 17:57 during the fourth run (gpt bf16 compiled); the fifth never started.
COMMON="allow_emulated_bf16=true cpus=1 epochs=1 max_steps=20 measure.warmup_steps=5 measure.peak_probe=false measure.kernel_probe=true quiet=true"
run() { TMPDIR=/tmp/lk-rest nice -n 19 .venv/bin/python run.py "$@" $COMMON; }
run model=bilstm backend=torch backend.mkldnn=false precision=bfloat16 exec=eager hydra.run.dir=results/matrix-rest-2026-12-01/bilstm-bf16-eager
run model=gpt backend=keras_torch exec=compiled precision=float32 hydra.run.dir=results/matrix-rest-2026-12-01/gpt-fp32-compiled
run model=imdb_transformer backend=keras_torch exec=compiled precision=float32 hydra.run.dir=results/matrix-rest-2026-12-01/imdb-fp32-compiled
run model=gpt backend=keras_torch exec=compiled precision=bfloat16 hydra.run.dir=results/matrix-rest-2026-12-01/gpt-bf16-compiled
run model=bilstm backend=torch backend.mkldnn=false precision=bfloat16 exec=compiled hydra.run.dir=results/matrix-rest-2026-12-01/bilstm-bf16-compiled
