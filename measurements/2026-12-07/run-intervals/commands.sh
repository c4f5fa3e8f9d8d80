#!/bin/sh
# A run's steady-step interval, over its steps or over batches of them (2026-12-07, Intel host,
# 2 vCPU; docs/findings/2026-12-07-run-intervals.md). From the repository root, 14:27-15:13 UTC,
# beside it only editing and a few seconds of unit tests: six workloads, both frameworks, 1 and
# 2 cores, one epoch of up to 800 steps each, then the check over these runs and the subnormals
# finding's 20-epoch runs.
OUT=${OUT:-/tmp/run-intervals}
mkdir -p "$OUT"
.venv/bin/python run.py -m backend=torch,tensorflow model=mlp,cnn,fasttext,gpt,imdb_transformer,tl_mlp \
  cpus=1,null epochs=1 max_steps=800 report=false quiet=true hydra.sweep.dir="$OUT/sweep" \
  > "$OUT/sweep.log" 2>&1
# The steps of every run with at least 400 steady steps, saved; the figures from them. The
# finding's file also holds four 20-epoch runs and one single run made earlier the same day
# outside this script (the finding names them).
.venv/bin/python -m benchmarks.diagnostics.run_intervals measurements/2026-12-07/subnormals \
  "$OUT/sweep" --save "$OUT/steps.json.gz" --verbose
.venv/bin/python -m benchmarks.diagnostics.run_intervals \
  --from measurements/2026-12-07/run-intervals/steps.json.gz --verbose \
  > measurements/2026-12-07/run-intervals/check.txt
for b in 10 40; do
  .venv/bin/python -m benchmarks.diagnostics.run_intervals \
    --from measurements/2026-12-07/run-intervals/steps.json.gz --batches "$b" | tail -2
done >> measurements/2026-12-07/run-intervals/check.txt
