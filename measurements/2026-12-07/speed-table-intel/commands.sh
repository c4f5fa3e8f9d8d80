# The whole speed table (issue 40, item 5: 35 cells, twinbench against the published example
# scripts and against the bare loop users write) on the Intel host, the first time on this
# machine type: the 2026-12-06 runs on the Zen 5 (measurements/2026-12-06/outside-by-reach and
# bare-by-reach) with the same settings: resident worker pairs, the same blocks per model, at
# most 30 units a row, margin 5%, alpha 5%, budgets spent by reach; outside code 46 min, bare
# loop torch 28 min, bare loop TensorFlow 11 min (85 minutes in all, within the item's 90).
# Run from the repository root with nothing else running: `bash commands.sh`.
set -u
P=".venv/bin/python -m"
OUT=measurements/2026-12-07/speed-table-intel
BLOCKS="40 cnn=6 tl_mlp=12 cifar10_cnn=12 fasttext=3 bilstm=12 charlstm=12 textgen=8 gpt=6 imdb_transformer=12"
ALL="mlp cnn tl_mlp cifar10_cnn fasttext bilstm charlstm textgen gpt imdb_transformer"
grep -m1 "model name" /proc/cpuinfo; grep -m1 "cpu family" /proc/cpuinfo; grep -m1 "^model\s" /proc/cpuinfo
git log --oneline -1
echo "=== $(date -u +%T) outside code, 20 rows, resident, 46 min, rounds by reach"
$P benchmarks.outside --pairing resident --blocks $BLOCKS --pairs 30 --budget-minutes 46 \
  --out $OUT/outside.json 2>&1 | tee $OUT/outside.log
echo "=== $(date -u +%T) bare loop torch, 10 rows, resident, 28 min, rounds by reach"
$P benchmarks.overhead --pairing resident --backends torch --models $ALL --blocks $BLOCKS \
  --pairs 30 --budget-minutes 28 --out $OUT/bare-torch.json 2>&1 | tee $OUT/bare-torch.log
echo "=== $(date -u +%T) bare loop TensorFlow, 5 rows, resident, 11 min, rounds by reach"
$P benchmarks.overhead --pairing resident --backends tensorflow \
  --models mlp cnn tl_mlp cifar10_cnn bilstm --blocks $BLOCKS --pairs 30 --budget-minutes 11 \
  --out $OUT/bare-tensorflow.json 2>&1 | tee $OUT/bare-tensorflow.log
echo "=== $(date -u +%T) done"
$P benchmarks.table --outside $OUT/outside.json \
  --bare $OUT/bare-torch.json $OUT/bare-tensorflow.json > $OUT/table.md
# Afterwards (18:38-18:45 UTC, nothing else running): the units' spread and cost against the
# Zen 5's two runs, and twinbench's torch loop against the bare loop's in one process
# (benchmarks/diagnostics/torch_loop_overhead.py), 60 rounds, at 1 and 2 cores, the bare loop's
# data its 26880 rows (210 steps, as in a resident pair) or every row.
.venv/bin/python $OUT/units.py $OUT/outside.json measurements/2026-12-06/outside-by-reach/outside.json \
  measurements/2026-12-05/speed-static-shape/outside.json > $OUT/units.txt
for c in 1 2; do for rows in 26880 ""; do
  echo "cpus=$c bare_rows=${rows:-all}"
  $P benchmarks.diagnostics.torch_loop_overhead --cpus $c --rounds 60 ${rows:+--bare-rows $rows} | tail -4
done; done > $OUT/loop-overhead.txt
