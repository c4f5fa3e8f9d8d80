#!/usr/bin/env bash
# Second part: fastText's worker pairs shortened to 6 blocks (its 20-block pairs took 136 s
# each, 3 in 300 s: no interval yet), TensorFlow's fastText again (its first sweep's retain
# workers failed the read-back of the first form, fixed in between), Keras on torch's fastText
# (one 20-block pair in its 300 s) and TensorFlow's MLP, then README command 1 as it comes and
# with both frameworks under backend.allocator=retain, alternating, twice each.
set -u
here=measurements/2026-12-07/allocator-setting
out=${OUT:-/tmp/allocator-setting-2}
one() {  # one BACKEND MODEL SECONDS [EXTRA...]
  local name=$1-$2 b=$1 m=$2 t=$3; shift 3
  .venv/bin/python run.py +experiment=compare backend=$b backend.allocator=default,retain \
    model=$m cpus=1 certify=false hydra.sweeper.decision.total_seconds=$t "$@" \
    hydra.sweep.dir=$out/$name > $here/$name.log 2>&1
  cp $out/$name/decisions.json $here/decisions-$name.json
}
one torch fasttext 420 +hydra.sweeper.decision.resident_blocks=6
mv $here/torch-fasttext.log $here/torch-fasttext-6blocks.log
mv $here/decisions-torch-fasttext.json $here/decisions-torch-fasttext-6blocks.json
one tensorflow fasttext 420 +hydra.sweeper.decision.resident_blocks=6
one keras_torch fasttext 420 +hydra.sweeper.decision.resident_blocks=6
one tensorflow mlp 200
for i in 1 2; do
  for mode in default retain; do
    .venv/bin/python run.py +experiment=compare backend.allocator=$mode \
      hydra.sweep.dir=$out/compare-$mode-$i > $here/compare-$mode-$i.log 2>&1
    cp $out/compare-$mode-$i/decisions.json $here/decisions-compare-$mode-$i.json
  done
done
