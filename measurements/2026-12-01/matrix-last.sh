# The last three cells of issue 26's matrix (docs/findings/2026-12-01-precision-and-exec.md,
# "The last three cells"), run 2026-12-01 19:21-20:01 UTC on core 0 (cpus=1), one after the
# other, with the kernel probe's limit now a setting (measure.kernel_probe_timeout_s, 1800 s).
# Tests ran on the other core at nice 19 meanwhile: compile times and kernels are what these
# cells are for; their step times are loaded and say so. Each record is trimmed to the keys the
# findings page reads (status, settings, startup, timing, kernels, history, ...).
set -u
OUT=measurements/2026-12-01/matrix-last
COMMON="allow_emulated_bf16=true cpus=1 epochs=1 max_steps=20 measure.warmup_steps=5 measure.peak_probe=false measure.kernel_probe=true quiet=true"
run() { TMPDIR=/tmp/lk-last .venv/bin/python run.py "$@" $COMMON; }
trim() {  # the full record -> the keys the page reads
  .venv/bin/python -c "import json, sys; r = json.load(open(sys.argv[1])); keys = ['status', 'error', 'backend', 'model', 'precision', 'exec_mode', 'cpus', 'settings', 'startup', 'timing', 'kernels', 'history', 'started', 'finished']; json.dump({k: r.get(k) for k in keys}, open(sys.argv[2], 'w'), indent=1)" "$@"
}
# 1. torch bilstm bf16 compiled, ATen's LSTM (oneDNN has no bf16 LSTM without bf16 units)
run model=bilstm backend=torch backend.mkldnn=false precision=bfloat16 exec=compiled hydra.run.dir=results/matrix-last-2026-12-01/bilstm-bf16-compiled
trim results/matrix-last-2026-12-01/bilstm-bf16-compiled/result.json $OUT/bilstm-bf16-compiled.json
# 2. Keras on torch gpt bf16 compiled
run model=gpt backend=keras_torch exec=compiled precision=bfloat16 hydra.run.dir=results/matrix-last-2026-12-01/gpt-bf16-compiled
trim results/matrix-last-2026-12-01/gpt-bf16-compiled/result.json $OUT/gpt-bf16-compiled.json
# 3. kernel evidence for Keras on torch gpt fp32 compiled: the run of matrix-rest.sh, probed again
( time PYTHONPATH=. .venv/bin/python $OUT/reprobe.py results/matrix-rest-2026-12-01/gpt-fp32-compiled 1800 ) > $OUT/gpt-fp32-compiled-probe.json 2> $OUT/gpt-fp32-compiled-probe.time
