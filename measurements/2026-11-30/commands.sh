#!/usr/bin/env bash
# Quiet-machine measurements for issues 12 and 14, in priority order. Run from /work/main.
set -u
cd /work/main
OUT=/work/measure/out
mkdir -p $OUT
export TMPDIR=/tmp/tmp-quiet; mkdir -p $TMPDIR
log() { echo "=== $(date +%T) $*"; }
log "done-when sweep (issue 14)"
time .venv/bin/python run.py -m backend=torch,tensorflow,keras_torch,keras_jax model=mlp,cnn cpus=1,2 epochs=1 max_steps=50 hydra.sweep.dir=$OUT/four-backends
log "repeats=auto on mlp and cnn (issue 12)"
time .venv/bin/python run.py -m backend=torch,tensorflow model=mlp,cnn repeats=auto epochs=2 max_steps=100 measure.max_repeats=12 measure.peak_probe=false hydra.sweep.dir=$OUT/repeats-auto
log "bimodality (issue 12)"
time .venv/bin/python -m benchmarks.bimodality --processes 6 --variants baseline thp_off interop_1 --epochs 3 --out $OUT/bimodality.json
log "outside code mlp full epochs (issue 12)"
time .venv/bin/python -m benchmarks.outside --models mlp --pairs 6 --epochs 3 --out $OUT/outside-mlp.json
log "outside code cnn 100 steps (issue 12)"
time .venv/bin/python -m benchmarks.outside --models cnn --pairs 6 --epochs 3 --max-steps 100 --out $OUT/outside-cnn.json
log "bare loop mlp cnn 100 steps (issue 12)"
time .venv/bin/python -m benchmarks.overhead --models mlp cnn --pairs 6 --steps 100 --epochs 3 --out $OUT/overhead-mlp-cnn.json
log "outside code, the other workloads, 60 steps, budget 10 min (issue 12)"
time .venv/bin/python -m benchmarks.outside --models tl_mlp fasttext cifar10_cnn bilstm charlstm textgen --pairs 6 --epochs 3 --max-steps 60 --budget-minutes 10 --out $OUT/outside-rest.json
log "all done"
