# The speed table's 35 cells again in resident worker pairs, after 5d258b0 (Keras-on-TensorFlow
# told its traced step the batch size where every batch is full: the three rows the 20:55 run of
# measurements/2026-12-05/speed-resident found SLOWER came out equivalent when measured alone,
# measurements/2026-12-05/static-batch-shape). The same design and the same 85 minutes; the
# minutes moved towards the torch bare-loop rows, five of which the earlier run left undecided
# at their budget (outside code 46, bare loop torch 28, bare loop TensorFlow 11).
# Design (as in speed-resident/commands.sh):
# `--pairing resident` runs each row's units as the deciding sweep's resident design does
# (twinbench/launch/resident.py): twinbench's worker and the other side's script alive at once on
# the same cores, a warm-up turn of 10 steps each, then K blocks of 5 training steps a side in
# turns (ABBA), each side timing its blocks with its waits left out; one unit a worker pair (the
# geometric mean of its rounds' ratios, per training step), then fresh processes.
# K per model keeps a side's compared steps at about 1-3 s on 2 cores (steps of 6 ms for mlp to
# 0.15-0.45 s for fasttext, from the 2026-12-02 tables): block noise over K is small beside a
# worker's lifelong state (README command 1's resident units, 2026-12-05: block noise 0.011-0.020
# of a unit spread of 0.03-0.08), so a longer life only costs units.
# In rounds (unit k of every undecided row before unit k+1 of any), at most 30 units a row,
# margin 5%, alpha 5% (conf/decision/default.yaml); budgets 46, 28 and 11 min: 85 min in
# all. Run from the repository root with nothing else running: `bash commands.sh`.
set -u
P=".venv/bin/python -m"
OUT=measurements/2026-12-05/speed-static-shape
BLOCKS="40 cnn=6 tl_mlp=12 cifar10_cnn=12 fasttext=3 bilstm=12 charlstm=12 textgen=8 gpt=6 imdb_transformer=12"
ALL="mlp cnn tl_mlp cifar10_cnn fasttext bilstm charlstm textgen gpt imdb_transformer"
echo "=== $(date -u +%T) outside code, 20 rows, resident, 46 min"
$P benchmarks.outside --pairing resident --blocks $BLOCKS --pairs 30 --budget-minutes 46 \
  --out $OUT/outside.json 2>&1 | tee $OUT/outside.log
echo "=== $(date -u +%T) bare loop torch, 10 rows, resident, 28 min"
$P benchmarks.overhead --pairing resident --backends torch --models $ALL --blocks $BLOCKS \
  --pairs 30 --budget-minutes 28 --out $OUT/bare-torch.json 2>&1 | tee $OUT/bare-torch.log
echo "=== $(date -u +%T) bare loop TensorFlow, 5 rows, resident, 11 min"
$P benchmarks.overhead --pairing resident --backends tensorflow \
  --models mlp cnn tl_mlp cifar10_cnn bilstm --blocks $BLOCKS --pairs 30 --budget-minutes 11 \
  --out $OUT/bare-tensorflow.json 2>&1 | tee $OUT/bare-tensorflow.log
echo "=== $(date -u +%T) done"
$P benchmarks.table --outside $OUT/outside.json --bare $OUT/bare-torch.json \
  $OUT/bare-tensorflow.json > $OUT/table.md
