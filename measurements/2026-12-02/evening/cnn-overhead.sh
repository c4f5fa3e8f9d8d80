# Why twinbench's torch cnn trains 7-8% slower than the bare loop (the bare-loop column's first
# pairs: 1.065, 1.081, 1.083, 1.125). Alternating runs on 2 cores, nothing else running:
# twinbench as the table runs it; twinbench without validation between epochs (a scratch
# worktree whose conf/model/cnn.yaml says `validate: false`); the bare loop. Every twinbench
# step's time is kept (steps.json), to see where in an epoch the time goes.
# Run 16:50-16:55 UTC. The record learnt `resources.cpu_time_training_steps_s` (commit 3dc2f4d)
# while this ran: twinbench-val-2 and -3 have it; val-1 and the no-validation runs (a worktree of
# the commit before) do not.
set -u
ROOT=$PWD
OUT=$ROOT/measurements/2026-12-02/evening/cnn-overhead
PY=$ROOT/.venv/bin/python
mkdir -p $OUT
rm -rf /tmp/tb-noval; git worktree add -q --detach /tmp/tb-noval HEAD
echo "validate: false" >> /tmp/tb-noval/conf/model/cnn.yaml
ARGS="backend=torch model=cnn cpus=2 epochs=4 max_steps=60 measure.peak_probe=false"
for i in 1 2 3; do
  (cd $ROOT && $PY run.py $ARGS hydra.run.dir=/tmp/cnn-val-$i > /dev/null 2>&1)
  (cd /tmp/tb-noval && $PY run.py $ARGS hydra.run.dir=/tmp/cnn-noval-$i > /dev/null 2>&1)
  (cd $ROOT && $PY -m benchmarks.bare_loop torch cnn 2 60 4 > $OUT/bare-$i.json 2>/dev/null)
  for v in val noval; do
    cp /tmp/cnn-$v-$i/result.json $OUT/twinbench-$v-$i.json
    cp /tmp/cnn-$v-$i/steps.json $OUT/steps-$v-$i.json
  done
done
git worktree remove --force /tmp/tb-noval
