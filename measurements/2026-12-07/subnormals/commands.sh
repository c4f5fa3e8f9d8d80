#!/bin/sh
# Subnormal floats and the MNIST MLP's full run (20 epochs of 469 steps, conf/model/mlp.yaml),
# from the repository root, nothing else running. One run each, one after the other:
# every backend at 1 core, torch with subnormals flushed, then torch at 2 cores both ways;
# the 1-core torch and TensorFlow runs profile 10 steps per layer after their timed steps.
# Each run's record: $OUT/<name>/result.json; its screen: $OUT/<name>.log.
OUT=${OUT:-measurements/2026-12-07/subnormals}
mkdir -p "$OUT"
run() { name=$1; shift; .venv/bin/python run.py model=mlp quiet=true "$@" hydra.run.dir="$OUT/$name" > "$OUT/$name.log" 2>&1; echo "$name rc=$?"; }
run torch-1 backend=torch cpus=1 profile=true
run torch-ftz-1 backend=torch cpus=1 backend.flush_denormal=true profile=true
run tensorflow-1 backend=tensorflow cpus=1 profile=true
run keras_torch-1 backend=keras_torch cpus=1
run keras_jax-1 backend=keras_jax cpus=1
run torch-2 backend=torch cpus=2
run torch-ftz-2 backend=torch cpus=2 backend.flush_denormal=true
# Where in the step they appear, epoch by epoch (the project's torch MLP, one pinned core)
.venv/bin/python -m benchmarks.diagnostics.subnormal_sites --epochs 16 > "$OUT/sites.txt" 2>&1
.venv/bin/python -m benchmarks.diagnostics.subnormal_sites --epochs 16 --flush > "$OUT/sites-flush.txt" 2>&1
# Two other workloads, part of their runs (TensorLayer's MLP: 40 of its 500 epochs; the CNN: 6 of 12)
.venv/bin/python -m benchmarks.diagnostics.subnormal_sites --model tl_mlp --epochs 40 --looks 1 20 40 > "$OUT/sites-tl_mlp.txt" 2>&1
.venv/bin/python -m benchmarks.diagnostics.subnormal_sites --model cnn --epochs 6 --looks 1 3 6 > "$OUT/sites-cnn.txt" 2>&1
# The full run's framework verdict: three interleaved repeats a side at 1 core, torch as it
# comes, then torch flushing subnormals (TensorFlow's own setting is already true)
.venv/bin/python run.py -m backend=torch,tensorflow model=mlp cpus=1 repeats=3 quiet=true report=false hydra.sweep.dir="$OUT/sweep-default" > "$OUT/sweep-default.log" 2>&1
.venv/bin/python run.py -m backend=torch,tensorflow model=mlp cpus=1 repeats=3 quiet=true report=false backend.flush_denormal=true hydra.sweep.dir="$OUT/sweep-flush" > "$OUT/sweep-flush.log" 2>&1
# (report/ and the sweeps' steps.json are not kept in the repository: this regenerates them)
.venv/bin/python -m analysis "$OUT/sweep-default" "$OUT/sweep-flush" --out "$OUT/report" > "$OUT/analysis.txt" 2>&1
