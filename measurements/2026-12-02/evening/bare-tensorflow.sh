# The bare-loop column's TensorFlow half, five of its rows (the 2017 workloads the morning's
# outside column left undecided or decided, as time allowed), in rounds: twinbench against
# benchmarks/bare_loop.py on Keras 3 / TensorFlow (model.fit on numpy arrays, one epoch-timing
# callback), training part of each epoch, 60 steps, 4 epochs a process, at most 12 pairs a row;
# margin 5%, alpha 5% (conf/decision/default.yaml). With the /proc sampler.
# Run from the repository root with nothing else running: `bash bare-tensorflow.sh` (MINUTES=28).
set -u
P=".venv/bin/python -m"
OUT=measurements/2026-12-02/evening
MINUTES=${MINUTES:-28}
$P benchmarks.diagnostics.idle_stretches --out /tmp/twinbench-idle-bare-tf.log --seconds $(( MINUTES * 60 + 300 )) &
SAMPLER=$!
echo "=== $(date -u +%T) bare loop, 5 TensorFlow rows in rounds, budget $MINUTES min"
$P benchmarks.overhead --backends tensorflow --models mlp cnn tl_mlp cifar10_cnn bilstm --steps 60 \
  --pairs 12 --epochs 4 --budget-minutes "$MINUTES" --out $OUT/bare-tensorflow.json 2>&1 | tee $OUT/bare-tensorflow.log
echo "=== $(date -u +%T) done"
kill $SAMPLER 2>/dev/null
$P benchmarks.diagnostics.idle_stretches --read /tmp/twinbench-idle-bare-tf.log > $OUT/idle-stretches-bare-tf.txt
$P benchmarks.table --outside measurements/2026-12-02/speed-rounds/outside.json \
  --bare measurements/2026-12-02/speed-rounds/bare-torch.json $OUT/bare-tensorflow.json > $OUT/table.md
