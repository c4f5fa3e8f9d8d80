# Issue 25's speed rows, attention split and profiles, 2026-12-01 (from the repository root).
# 11:35-12:03, otherwise idle machine: outside code on core 0; the attention sweep then the bare
# loop on core 1 (separate lock files: the two tools run side by side, each interleaving its pairs).
OUT=measurements/2026-12-01/issue25
( taskset -c 0 python -m benchmarks.outside --models gpt --backends torch tensorflow --pairs 6 --epochs 2 --cpus 1 --max-steps 20 --out $OUT/outside-gpt.json > $OUT/outside-gpt.txt 2>&1
  taskset -c 0 python -m benchmarks.outside --models imdb_transformer --backends torch tensorflow --pairs 6 --epochs 2 --cpus 1 --max-steps 60 --out $OUT/outside-imdb.json > $OUT/outside-imdb.txt 2>&1 ) &
( export TMPDIR=/tmp/lock1; mkdir -p $TMPDIR
  taskset -c 1 python run.py -m backend=torch,tensorflow,keras_torch,keras_jax model=gpt,imdb_transformer model.arch.attention=fused,explicit cpus=1 epochs=1 max_steps=30 measure.peak_probe=false hydra.sweep.dir=/tmp/attn-split > $OUT/attention-split.txt 2>&1
  taskset -c 1 python -m benchmarks.overhead --models gpt imdb_transformer --pairs 6 --epochs 2 --cpus 1 --steps 20 --out $OUT/bare.json > $OUT/bare.txt 2>&1 ) &
wait
python -m benchmarks.table --outside $OUT/outside-gpt.json $OUT/outside-imdb.json --bare $OUT/bare.json
# 12:12-12:25, under load (a sweep and two test runs): fused vs explicit in one process, then profiles.
for m in gpt imdb_transformer; do for b in torch tensorflow keras_torch keras_jax; do
  TMPDIR=/tmp/lock1 taskset -c 1 python -m benchmarks.attention $b $m 1 5 7
done; done > $OUT/attention-blocks.txt
TMPDIR=/tmp/lock1 taskset -c 1 python run.py -m backend=torch,tensorflow model=gpt,imdb_transformer cpus=1 epochs=1 max_steps=30 profile=true measure.peak_probe=false > $OUT/profile.txt
# The report over the done-when sweep (cpus=1,2, loaded) and the attention sweep:
python -m analysis <done-when sweep> /tmp/attn-split > $OUT/report-combined.txt
