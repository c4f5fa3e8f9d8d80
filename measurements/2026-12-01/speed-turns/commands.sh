# Rows of the speed table measured again with the sequential engine, in turns (benchmarks/pairs.py
# run_table, benchmarks/turn_pairs.py): each row stops at the pair where its 95% confidence
# sequence decides (margin 5%), or at 12 pairs or its share of the budget. 2 cores (the default
# --cpus), the 2026-11-30 table's lengths. Run from the repository root with nothing else running
# (docs/findings/2026-12-01-speed-table-in-turns.md says when).
set -u
P=".venv/bin/python -m"
OUT=measurements/2026-12-01/speed-turns
$P benchmarks.outside --models mlp --pairs 12 --epochs 3 --budget-minutes 14 --out $OUT/outside-mlp.json 2>&1 | tee $OUT/outside-mlp.log
$P benchmarks.outside --models cnn --pairs 12 --epochs 3 --max-steps 30 --budget-minutes 12 --out $OUT/outside-cnn.json 2>&1 | tee $OUT/outside-cnn.log
$P benchmarks.overhead --models mlp --pairs 12 --steps 469 --epochs 3 --budget-minutes 12 --out $OUT/bare-mlp.json 2>&1 | tee $OUT/bare-mlp.log
$P benchmarks.overhead --models cnn --pairs 12 --steps 30 --epochs 3 --budget-minutes 12 --out $OUT/bare-cnn.json 2>&1 | tee $OUT/bare-cnn.log
$P benchmarks.table --outside $OUT/outside-*.json --bare $OUT/bare-*.json > $OUT/table.md
