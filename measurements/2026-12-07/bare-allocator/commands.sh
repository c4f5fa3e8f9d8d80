# The speed table with glibc's allocator the same on both sides (2026-12-07 night, the Intel
# host): first twinbench against the bare loop on the two MLPs under the default and under
# `retain`, then the whole table under `retain` with the settings of the evening's table
# (measurements/2026-12-07/speed-table-intel/commands.sh), then what explains the MLPs.
# Run from the repository root with nothing else running:
# `bash measurements/2026-12-07/bare-allocator/commands.sh`.
set -u
P=".venv/bin/python"
OUT=measurements/2026-12-07/bare-allocator
grep -m1 "model name" /proc/cpuinfo; grep -m1 "cpu family" /proc/cpuinfo; grep -m1 "^model\s" /proc/cpuinfo
git log --oneline -1
# 1. (a clone of 7574a1b, 19:55-20:01 UTC) mlp and tl_mlp, 14 worker pairs of each of the four
#    conditions, taken in turns unit by unit, 2 cores.
PYTHONPATH=. $P $OUT/ab.py --units 14 --models mlp tl_mlp --json $OUT/ab.json > $OUT/ab.txt
# 2. (a clone of aebca3f, 20:05-21:00 UTC; table-start.txt) the whole speed table, both sides
#    under retain: bare loop torch (28 min at most), outside code (46), bare loop TensorFlow (11).
BLOCKS="40 cnn=6 tl_mlp=12 cifar10_cnn=12 fasttext=3 bilstm=12 charlstm=12 textgen=8 gpt=6 imdb_transformer=12"
ALL="mlp cnn tl_mlp cifar10_cnn fasttext bilstm charlstm textgen gpt imdb_transformer"
$P -m benchmarks.overhead --pairing resident --allocator retain --backends torch --models $ALL \
  --blocks $BLOCKS --pairs 30 --budget-minutes 28 --out $OUT/bare-torch-retain.json \
  > $OUT/bare-torch-retain.log 2>&1
$P -m benchmarks.outside --pairing resident --allocator retain --blocks $BLOCKS --pairs 30 \
  --budget-minutes 46 --out $OUT/outside-retain.json > $OUT/outside-retain.log 2>&1
$P -m benchmarks.overhead --pairing resident --allocator retain --backends tensorflow \
  --models mlp cnn tl_mlp cifar10_cnn bilstm --blocks $BLOCKS --pairs 30 --budget-minutes 11 \
  --out $OUT/bare-tensorflow-retain.json > $OUT/bare-tensorflow-retain.log 2>&1
$P -m benchmarks.table --outside $OUT/outside-retain.json \
  --bare $OUT/bare-torch-retain.json $OUT/bare-tensorflow-retain.json > $OUT/table-retain.md
# Each row's spread, units and decision beside the evening's default-allocator table:
for t in bare-torch outside bare-tensorflow; do
  $P $OUT/spread.py measurements/2026-12-07/speed-table-intel/$t.json $OUT/$t-retain.json
done > $OUT/spread.md
# 3. (21:03-21:05 UTC) page faults a step of each side alone under the default, and twinbench's
#    torch loop against the bare loop's in one process under retain (60 rounds).
PYTHONPATH=. $P $OUT/faults.py --models mlp tl_mlp --steps 70 --runs 3 > $OUT/faults.txt
MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=68719476736 PYTHONPATH=. \
  $P -m benchmarks.diagnostics.torch_loop_overhead --model mlp --cpus 2 --rounds 60 \
  --bare-rows 26880 | tail -6 > $OUT/loop-overhead-retain.txt
