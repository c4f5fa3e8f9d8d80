# The speed table's bare-loop rows (15 of its 35 cells) again, their budgets spent by reach
# (benchmarks/rounds.py, 7b97388), to complete with measurements/2026-12-06/outside-by-reach (the
# 20 outside-code rows, 06:13 UTC) a whole table on today's engine. Everything else as the
# 2026-12-05 run it is compared with (measurements/2026-12-05/speed-static-shape/commands.sh:
# resident worker pairs, the same blocks per model, at most 30 units a row, margin 5%, alpha 5%,
# bare loop torch 28 min, bare loop TensorFlow 11 min). That run decided torch 8 of 10 and
# TensorFlow 5 of 5, none slower. Run from the repository root with nothing else running:
# `bash commands.sh`.
set -u
P=".venv/bin/python -m"
OUT=measurements/2026-12-06/bare-by-reach
BLOCKS="40 cnn=6 tl_mlp=12 cifar10_cnn=12 fasttext=3 bilstm=12 charlstm=12 textgen=8 gpt=6 imdb_transformer=12"
ALL="mlp cnn tl_mlp cifar10_cnn fasttext bilstm charlstm textgen gpt imdb_transformer"
echo "=== $(date -u +%T) bare loop torch, 10 rows, resident, 28 min, rounds by reach"
$P benchmarks.overhead --pairing resident --backends torch --models $ALL --blocks $BLOCKS \
  --pairs 30 --budget-minutes 28 --out $OUT/bare-torch.json 2>&1 | tee $OUT/bare-torch.log
echo "=== $(date -u +%T) bare loop TensorFlow, 5 rows, resident, 11 min, rounds by reach"
$P benchmarks.overhead --pairing resident --backends tensorflow \
  --models mlp cnn tl_mlp cifar10_cnn bilstm --blocks $BLOCKS --pairs 30 --budget-minutes 11 \
  --out $OUT/bare-tensorflow.json 2>&1 | tee $OUT/bare-tensorflow.log
echo "=== $(date -u +%T) done"
$P benchmarks.table --outside measurements/2026-12-06/outside-by-reach/outside.json \
  --bare $OUT/bare-torch.json $OUT/bare-tensorflow.json > $OUT/table.md
