#!/usr/bin/env bash
# Quiet-machine measurements for issues 12 and 14, in priority order, from the repository root.
# The diagnostics below were scripts in diag/ here; they now live in benchmarks/diagnostics/.
set -u
cd "$(dirname "$0")/../.."  # the repository root
OUT=results/measure  # first session: scratch output, not kept in the repository
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

# ---- Second session, same day (quiet machine; logs quiet-2*.log, quiet-3.log, quiet-5.log).
# quiet-2-aborted.log: the first start of the table, stopped after 5 pairs to check the
# torch loop in one process (step_pairs, below); it was started again from the top.
# During quiet-2.log's torch fasttext outside row, a stray diagnostic process ran for a few
# seconds (started too early and killed); one pair of that row may have overlapped it.
log "second session: speed table (issue 12)"
P=".venv/bin/python -m"; OUT=measurements/2026-11-30
$P benchmarks.overhead --models mlp --pairs 6 --steps 469 --epochs 3 --out $OUT/bare-mlp.json
$P benchmarks.outside --models tl_mlp cifar10_cnn --pairs 6 --epochs 3 --max-steps 60 --out $OUT/outside-60a.json
$P benchmarks.overhead --models cnn textgen --pairs 6 --steps 30 --epochs 3 --out $OUT/bare-30.json
$P benchmarks.outside --models cnn --backends tensorflow --pairs 6 --epochs 3 --max-steps 30 --out $OUT/outside-cnn-tf.json
$P benchmarks.outside --models textgen --pairs 6 --epochs 3 --max-steps 30 --out $OUT/outside-textgen.json
$P benchmarks.overhead --models tl_mlp cifar10_cnn bilstm charlstm --pairs 6 --steps 60 --epochs 3 --out $OUT/bare-60.json
$P benchmarks.outside --models bilstm charlstm --pairs 6 --epochs 3 --max-steps 60 --out $OUT/outside-60b.json
$P benchmarks.outside --models fasttext --pairs 6 --epochs 3 --max-steps 6 --out $OUT/outside-fasttext.json
$P benchmarks.overhead --models fasttext --pairs 6 --steps 6 --epochs 3 --out $OUT/bare-fasttext.json
$P benchmarks.outside --models cnn --backends torch --pairs 6 --epochs 3 --max-steps 30 --out $OUT/outside-cnn-torch.json
$P benchmarks.table --outside $OUT/outside-*.json --bare $OUT/bare-*.json
log "second session: where the modes come from (issue 12)"
$P benchmarks.speed_states probe --seconds 60 --chunk-ms 20 --out $OUT/speed-states-probe.json
$P benchmarks.speed_states steps results/measure/repeats-auto > $OUT/speed-states-steps-repeats-auto.txt
log "second session: the torch loop in one process, repeats=auto with a stated target"
$P benchmarks.step_pairs --model mlp --pairs 40 --block 50 --out $OUT/step-pairs-mlp.json
$P benchmarks.step_pairs --model cnn --pairs 30 --block 10 --out $OUT/step-pairs-cnn.json
.venv/bin/python run.py -m backend=torch,tensorflow model=mlp,cnn repeats=auto epochs=2 max_steps=100 measure.target_rel_width=0.30 measure.max_repeats=12 measure.peak_probe=false
.venv/bin/python run.py -m backend=torch model=mlp repeats=auto epochs=3 measure.target_rel_width=0.10 measure.max_repeats=12 measure.peak_probe=false
log "second session: TensorFlow bilstm, the one SLOWER row"
.venv/bin/python -m benchmarks.diagnostics.keras_feed bilstm 60 4
.venv/bin/python -m benchmarks.diagnostics.worker_state 2
log "after the CI run: TensorFlow bilstm again (the SLOWER row)"
.venv/bin/python -m benchmarks.diagnostics.validate_inproc bilstm 60 4  # validate 2.18 s, none 2.05 s (median)
$P benchmarks.outside --models bilstm --backends tensorflow --pairs 4 --epochs 3 --max-steps 60 --out $OUT/recheck-outside-bilstm-tf-4pairs.json
$P benchmarks.outside --models bilstm --backends tensorflow --pairs 6 --epochs 3 --max-steps 60 --out $OUT/rerun-outside-bilstm-tf.json

# ---- Third session, same day (quiet machine).
log "third session: TensorFlow bilstm, 20 more pairs, then all its runs pooled"
$P benchmarks.outside --models bilstm --backends tensorflow --pairs 20 --epochs 3 --max-steps 60 --out $OUT/third-outside-bilstm-tf-20pairs.json
$P benchmarks.table --outside $OUT/outside-*.json $OUT/recheck-outside-bilstm-tf-4pairs.json $OUT/rerun-outside-bilstm-tf.json $OUT/third-outside-bilstm-tf-20pairs.json --bare $OUT/bare-*.json
log "third session: what sets TensorFlow bilstm's levels"
$P benchmarks.bimodality --processes 6 --variants baseline interop_1 onednn_off --model bilstm --epochs 3 --max-steps 60 --out $OUT/bimodality-bilstm-tf.json
log "third session: memory placement per process, framework-free"
$P benchmarks.speed_states placement --rounds 12 --seconds 4 --out $OUT/placement.json
log "third session: repeats=auto at a stated 10% on mlp (full epochs) and cnn (100 steps)"
.venv/bin/python run.py -m backend=torch,tensorflow model=mlp repeats=auto epochs=3 measure.target_rel_width=0.10 measure.max_repeats=20 measure.peak_probe=false
.venv/bin/python run.py -m backend=torch,tensorflow model=cnn repeats=auto epochs=2 max_steps=100 measure.target_rel_width=0.10 measure.max_repeats=20 measure.peak_probe=false
.venv/bin/python run.py -m backend=torch model=cnn repeats=auto epochs=2 max_steps=100 measure.target_rel_width=0.10 measure.max_repeats=30 measure.peak_probe=false
log "third session: TensorFlow bilstm against the bare loop, 14 more pairs, pooled with the first 6"
$P benchmarks.overhead --models bilstm --backends tensorflow --pairs 14 --steps 60 --epochs 3 --out $OUT/third-bare-bilstm-tf-14pairs.json
$P benchmarks.table --outside $OUT/outside-*.json $OUT/recheck-outside-bilstm-tf-4pairs.json $OUT/rerun-outside-bilstm-tf.json $OUT/third-outside-bilstm-tf-20pairs.json --bare $OUT/bare-*.json $OUT/third-bare-bilstm-tf-14pairs.json
log "third session: validation on or off, twinbench's TF train() in fresh processes, alternating"
for i in 1 2 3 4 5 6 7 8; do
  if [ $((i % 2)) -eq 1 ]; then o="1 0"; else o="0 1"; fi
  for v in $o; do .venv/bin/python -m benchmarks.diagnostics.fresh_validate bilstm 60 $v 2>/dev/null | tail -1; done
done > $OUT/fresh-validate-bilstm.txt
