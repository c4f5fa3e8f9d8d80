# The rest of the speed table measured with the sequential engine, in turns (benchmarks/pairs.py
# run_table, benchmarks/turn_pairs.py): each row stops at the pair where its 95% confidence
# sequence decides (margin 5%), or at 12 pairs or its share of the time left. 2 cores (the
# default --cpus), the 2026-11-30 table's lengths, 4 epochs a process (the steady figure is the
# median of the last three). One deadline for the whole script: each command's budget is its
# rows' share of the minutes left, so rows that decide early leave time to the later ones.
# Run from the repository root with nothing else running: `bash commands.sh outside` (the 16
# outside-code rows, about two hours), `bare-torch` and `bare-rest` (the 16 bare-loop rows).
set -u
PART=${1:?outside, bare-torch or bare-rest}
P=".venv/bin/python -m"
OUT=measurements/2026-12-01/speed-turns-rest
DEADLINE=$(( $(date +%s) + ${MINUTES:-120} * 60 ))
ROWS_LEFT=16
budget() {  # minutes for a command of $1 rows: its share of what is left before the deadline
  python3 -c "import sys,time; print(max(1.0, round(($DEADLINE-time.time())/60*$1/$ROWS_LEFT, 1)))"
}
step() {  # rows, tool, file, args...
  local rows=$1 tool=$2 name=$3; shift 3
  local b; b=$(budget "$rows")
  echo "=== $(date +%T) $tool $name: $rows rows, budget $b min"
  $P benchmarks.$tool "$@" --pairs 12 --epochs 4 --budget-minutes "$b" --out $OUT/$name.json 2>&1 | tee $OUT/$name.log
  ROWS_LEFT=$(( ROWS_LEFT - rows ))
}
[ $PART = outside ] && step 10 outside outside-60 --models tl_mlp cifar10_cnn bilstm charlstm imdb_transformer --max-steps 60
[ $PART = outside ] && step 2 outside outside-fasttext --models fasttext --max-steps 6
[ $PART = outside ] && step 2 outside outside-textgen --models textgen --max-steps 30
[ $PART = outside ] && step 2 outside outside-gpt --models gpt --max-steps 20
# The bare-loop column: its five 60-step torch rows first (2026-12-02 01:08, MINUTES=28 bash
# commands.sh bare-torch), the rest later (bash commands.sh bare-rest, about 100 minutes).
[ $PART = bare-torch ] && ROWS_LEFT=5 && step 5 overhead bare-60-torch --models tl_mlp cifar10_cnn bilstm charlstm imdb_transformer --backends torch --steps 60
[ $PART = bare-rest ] && ROWS_LEFT=11 && step 5 overhead bare-60-tensorflow --models tl_mlp cifar10_cnn bilstm charlstm imdb_transformer --backends tensorflow --steps 60
[ $PART = bare-rest ] && step 2 overhead bare-fasttext --models fasttext --steps 6
[ $PART = bare-rest ] && step 2 overhead bare-textgen --models textgen --steps 30
[ $PART = bare-rest ] && step 2 overhead bare-gpt --models gpt --steps 20
echo "=== $(date +%T) done"
$P benchmarks.table --outside $(ls $OUT/outside-*.json) --bare $(ls $OUT/bare-*.json 2>/dev/null) > $OUT/table.md

# TensorFlow's pauses (docs/findings/2026-12-01-speed-table-in-turns.md, "TensorFlow's pauses").
# During the table, from 00:16:40 to 00:59:25 UTC, a /proc sampler (4 samples a second) listed the
# stretches in which a process gained no CPU outside its turn waits (tf-pauses-during-table.txt);
# py-spy dumped the Python and native stacks of the first stalled processes (tf-pause-pyspy-*.txt).
# The sampler is now benchmarks/diagnostics/idle_stretches.py. After the table, the 2017 text
# generator script alone (no partner, no turns), twice, with gdb stacks at its first pause:
#   python -m benchmarks.diagnostics.idle_stretches --out idle.log --seconds 200 --gdb 1 --match 'benchmarks\.ports\.\w+' &
#   python -m benchmarks.ports.keras_text_generator --cpus 2 --epochs 8 --max-steps 30   # twice
#   python -m benchmarks.diagnostics.idle_stretches --read idle.log   # -> tf-pauses-alone.txt, tf-pause-gdb-stacks.txt
