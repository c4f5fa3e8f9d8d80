# The speed table's outside-code rows (20 of its 35 cells) again, spending their 46 minutes by
# reach (benchmarks/rounds.py, 7b97388): once a row has an interval, a round runs it only while
# its projected pairs fit beside the rows nearer their decision. Everything else as the
# 2026-12-05 run it is compared with (measurements/2026-12-05/speed-static-shape/commands.sh:
# resident worker pairs, the same blocks per model, at most 30 units a row, margin 5%, alpha 5%,
# 46 minutes). Before it ran, benchmarks/diagnostics/rounds_replay.py replayed that run's own
# units through both ways of spending the budget (20 seeds): 7.7 rows decided a table with
# every row every round (the run itself decided 6), 11.7 by reach: the prediction this run
# checks. Run from the repository root with nothing else running: `bash commands.sh`.
set -u
P=".venv/bin/python -m"
OUT=measurements/2026-12-06/outside-by-reach
BLOCKS="40 cnn=6 tl_mlp=12 cifar10_cnn=12 fasttext=3 bilstm=12 charlstm=12 textgen=8 gpt=6 imdb_transformer=12"
echo "=== $(date -u +%T) outside code, 20 rows, resident, 46 min, rounds by reach"
$P benchmarks.outside --pairing resident --blocks $BLOCKS --pairs 30 --budget-minutes 46 \
  --out $OUT/outside.json 2>&1 | tee $OUT/outside.log
echo "=== $(date -u +%T) done"
$P benchmarks.table --outside $OUT/outside.json > $OUT/table.md
