# The matrix cells still missing after the transformer sweep (docs/findings/2026-12-01-precision-and-exec.md,
# "The cells that were left"): Keras on torch compiled on the transformers (its compile passed the 300 s
# limit), and torch bilstm now that compiling traces the LSTM and bf16 runs ATen's LSTM. No time limit;
# run at nice 19 beside a CI simulation, on a separate lock: the speeds are loaded and say so.
TMPDIR=/tmp/lk-rest nice -n 19 .venv/bin/python run.py -m model=bilstm backend=torch backend.mkldnn=false \
  precision=float32,bfloat16 exec=eager,compiled allow_emulated_bf16=true cpus=1 \
  epochs=1 max_steps=20 measure.warmup_steps=5 measure.peak_probe=false measure.kernel_probe=true quiet=true \
  hydra.sweep.dir=results/matrix-rest-2026-12-01/bilstm
TMPDIR=/tmp/lk-rest nice -n 19 .venv/bin/python run.py -m model=gpt,imdb_transformer backend=keras_torch exec=compiled \
  precision=float32,bfloat16 allow_emulated_bf16=true cpus=1 \
  epochs=1 max_steps=20 measure.warmup_steps=5 measure.peak_probe=false measure.kernel_probe=true quiet=true \
  hydra.sweep.dir=results/matrix-rest-2026-12-01/keras-torch-compiled
