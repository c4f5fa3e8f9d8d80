# The bare-loop column's torch rows on the 2026-12-02 host, all 10 in one command, in rounds
# (benchmarks/pairs.py run_table), right after the outside-code column (commands.sh).
# twinbench against benchmarks/bare_loop.py (a plain torch loop), training part of each epoch,
# 60 steps (gpt 20 and fasttext 6, as in the outside column: their steps take 0.3-0.5 s), 4 epochs
# a process, at most 12 pairs a row; margin 5%, alpha 5% (conf/decision/default.yaml).
# Run from the repository root with nothing else running: `bash bare-torch.sh` (MINUTES=50).
# (First written with fasttext=300, on the belief that its steps took a millisecond: its epochs
# took 113-127 s, a pair about 16 minutes; stopped on 2026-12-02 at 16:05 and started again.)
set -u
P=".venv/bin/python -m"
OUT=measurements/2026-12-02/speed-rounds
MINUTES=${MINUTES:-50}
echo "=== $(date -u +%T) bare loop, 10 torch rows in rounds, budget $MINUTES min"
$P benchmarks.overhead --backends torch --models mlp cnn tl_mlp cifar10_cnn fasttext bilstm \
  charlstm textgen gpt imdb_transformer --steps 60 gpt=20 fasttext=6 --pairs 12 --epochs 4 \
  --budget-minutes "$MINUTES" --out $OUT/bare-torch.json 2>&1 | tee $OUT/bare-torch.log
echo "=== $(date -u +%T) done"
$P benchmarks.table --outside $OUT/outside.json --bare $OUT/bare-torch.json > $OUT/table.md
