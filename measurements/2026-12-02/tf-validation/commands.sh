# docs/findings/2026-12-02-new-host-verdict-flips.md, "TensorFlow's validation pauses": the
# TensorFlow rows against the 2017 Keras scripts that validate, after twinbench's validation input
# became a tf.data pipeline without the autotuner (TensorFlowBackend.validation). Before: the same
# rows in measurements/2026-12-02/speed-turns/outside-60.json (twinbench still gave fit numpy
# validation arrays). Same lengths and engine; a /proc sampler beside it lists every second a
# process sat idle outside its turn waits (idle-stretches.txt). Nothing else running.
set -u
P=".venv/bin/python -m"
OUT=measurements/2026-12-02/tf-validation
$P benchmarks.diagnostics.idle_stretches --out /tmp/twinbench-idle-after.log --seconds $(( ${MINUTES:-16} * 60 + 120 )) &
SAMPLER=$!
$P benchmarks.outside --backends tensorflow --models bilstm cifar10_cnn --max-steps 60 --pairs 12 --epochs 4 --budget-minutes ${MINUTES:-16} --out $OUT/outside-after.json 2>&1 | tee $OUT/outside-after.log
kill $SAMPLER 2>/dev/null
$P benchmarks.diagnostics.idle_stretches --read /tmp/twinbench-idle-after.log > $OUT/idle-stretches.txt
