# The speed table's outside-code column once more on the 2026-12-02 host (AMD Zen 5, AVX-512
# with avx512_bf16), all 20 rows in one command, in rounds (benchmarks/pairs.py run_table: pair k
# of every undecided row before pair k+1 of any; a row's next pair starts only while its last
# pair's length fits before the deadline). Earlier today each row had a share of what was left
# and half the rows stopped at 2-4 pairs, below the 5 a confidence sequence needs for an
# interval. TensorFlow's validation no longer pauses (commit 0440df7).
# 2 cores; 60 steps an epoch (mlp too, where earlier tables ran its full 469), textgen 30, gpt 20,
# fasttext 6 (the earlier tables' lengths); 4 epochs a process (the steady figure is the median of
# the last three); at most 12 pairs a row; margin 5%, alpha 5% (conf/decision/default.yaml).
# Run from the repository root with nothing else running: `bash commands.sh` (MINUTES=90).
set -u
P=".venv/bin/python -m"
OUT=measurements/2026-12-02/speed-rounds
MINUTES=${MINUTES:-90}
$P benchmarks.diagnostics.idle_stretches --out /tmp/twinbench-idle-rounds.log --seconds $(( MINUTES * 60 + 600 )) &
SAMPLER=$!
echo "=== $(date -u +%T) outside, 20 rows in rounds, budget $MINUTES min"
$P benchmarks.outside --max-steps 60 fasttext=6 textgen=30 gpt=20 --pairs 12 --epochs 4 \
  --budget-minutes "$MINUTES" --out $OUT/outside.json 2>&1 | tee $OUT/outside.log
echo "=== $(date -u +%T) done"
kill $SAMPLER 2>/dev/null
$P benchmarks.diagnostics.idle_stretches --read /tmp/twinbench-idle-rounds.log > $OUT/idle-stretches.txt
$P benchmarks.table --outside $OUT/outside.json > $OUT/table.md
