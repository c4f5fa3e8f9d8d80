# The three rows the 20:55 speed table (measurements/2026-12-05/speed-resident) found SLOWER,
# measured again alone after 5d258b0 (23:42-23:50 UTC, 2 cores, Zen 5 host, nothing else
# running): Keras-on-TensorFlow's traced step is told its batch size where every batch of the
# epoch is full, as in every resident worker pair (max_steps stops before a partial batch).
# Same design as the table (resident worker pairs, K blocks of 5 steps a side, per step).
# Run from the repository root: `bash commands.sh`.
set -u
P=".venv/bin/python -m"
OUT=measurements/2026-12-05/static-batch-shape
$P benchmarks.overhead --pairing resident --backends tensorflow --models bilstm \
  --blocks 40 bilstm=12 --pairs 30 --budget-minutes 5 \
  --out $OUT/bare-tensorflow-bilstm.json 2>&1 | grep -v "epoch 1/1" > $OUT/bare-tensorflow-bilstm.log
$P benchmarks.outside --pairing resident --backends tensorflow --models bilstm gpt \
  --blocks 40 bilstm=12 gpt=6 --pairs 30 --budget-minutes 10 \
  --out $OUT/outside-tensorflow.json 2>&1 | grep -v "epoch 1/1" > $OUT/outside-tensorflow.log
# Where the cost was: the traced step's graph with the batch size known and unknown.
for m in bilstm gpt mlp; do $P benchmarks.diagnostics.traced_step $m; done
