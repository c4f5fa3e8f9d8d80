# The speed table's outside-code column measured again, all on one machine in one sitting: the
# host changed between 2026-12-01 (an AVX2 CPU) and 2026-12-02 (AMD Zen 5, family 26, AVX-512
# with avx512_bf16), so the rows of the two days are not one table. Sequential engine in turns
# (benchmarks/pairs.py run_table, benchmarks/turn_pairs.py): each row stops at the pair where its
# 95% confidence sequence decides (margin 5%), or at 12 pairs or its share of the time left.
# 2 cores, the 2026-12-01 lengths (60 steps an epoch; mlp full epochs, textgen 30, gpt 20,
# fasttext 6), 4 epochs a process (the steady figure is the median of the last three).
# A /proc sampler runs beside it (benchmarks/diagnostics/idle_stretches.py): a TensorFlow process
# idle outside its turn waits for a second or more is listed in idle-stretches.txt.
# Run from the repository root with nothing else running: `bash commands.sh` (MINUTES=70 by default).
set -u
P=".venv/bin/python -m"
OUT=measurements/2026-12-02/speed-turns
DEADLINE=$(( $(date +%s) + ${MINUTES:-70} * 60 ))
ROWS_LEFT=20
budget() {  # minutes for a command of $1 rows: its share of what is left before the deadline
  python3 -c "import time; print(max(1.0, round(($DEADLINE-time.time())/60*$1/$ROWS_LEFT, 1)))"
}
step() {  # rows, file, args...
  local rows=$1 name=$2; shift 2
  local b; b=$(budget "$rows")
  echo "=== $(date +%T) outside $name: $rows rows, budget $b min"
  $P benchmarks.outside "$@" --pairs 12 --epochs 4 --budget-minutes "$b" --out $OUT/$name.json 2>&1 | tee $OUT/$name.log
  ROWS_LEFT=$(( ROWS_LEFT - rows ))
}
$P benchmarks.diagnostics.idle_stretches --out /tmp/twinbench-idle.log --seconds $(( ${MINUTES:-70} * 60 + 300 )) &
SAMPLER=$!
step 2 outside-mlp --models mlp
step 12 outside-60 --models cnn tl_mlp cifar10_cnn bilstm charlstm imdb_transformer --max-steps 60
step 2 outside-fasttext --models fasttext --max-steps 6
step 2 outside-textgen --models textgen --max-steps 30
step 2 outside-gpt --models gpt --max-steps 20
echo "=== $(date +%T) done"
kill $SAMPLER 2>/dev/null
$P benchmarks.diagnostics.idle_stretches --read /tmp/twinbench-idle.log > $OUT/idle-stretches.txt
$P benchmarks.table --outside $(ls $OUT/outside-*.json) > $OUT/table.md
