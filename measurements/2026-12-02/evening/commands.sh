# Evening session of 2026-12-02 on the same host type (AMD EPYC Zen 5, 2 vCPUs, AVX-512 with
# avx512_bf16), a fresh machine: no cached noise floor or peak. Run from the repository root with
# nothing else running: `bash measurements/2026-12-02/evening/commands.sh` (about 65 minutes).
set -u
P=".venv/bin/python -m"
OUT=measurements/2026-12-02/evening
$P benchmarks.diagnostics.idle_stretches --out /tmp/twinbench-idle-evening.log --seconds 900 &
SAMPLER=$!
# 1. The A/A noise floor of README command 1's workload (mlp, 2 epochs of 100 steps, in turns),
#    torch at 1 and at 2 cores (cached, read by command 1), and TensorFlow at 2 cores (kept apart
#    in its own cache directory: the cache key has no backend, and command 1 reads torch's).
echo "=== $(date -u +%T) calibrate"
$P twinbench.cli.calibrate --model mlp --cpus 1 --max-steps 100 --pairs 6 > $OUT/calibrate-torch-cpus1.log 2>&1
$P twinbench.cli.calibrate --model mlp --max-steps 100 --pairs 6 > $OUT/calibrate-torch-cpus2.log 2>&1
$P twinbench.cli.calibrate --model mlp --backend tensorflow --max-steps 100 --pairs 6 \
  --cache-dir /tmp/twinbench-tf-floor > $OUT/calibrate-tensorflow-cpus2.log 2>&1
# 2. README command 1 as written.
echo "=== $(date -u +%T) README command 1"
/usr/bin/time -f "wall %e s" .venv/bin/python run.py +experiment=compare hydra.sweep.dir=results/compare-evening > $OUT/compare.log 2>&1
cp results/compare-evening/decisions.json $OUT/decisions-compare.json 2>/dev/null
# 3. The bare-loop column's 10 torch rows, in rounds (measurements/2026-12-02/speed-rounds/bare-torch.sh),
#    50 minutes, from 16:05 UTC, with its own sampler (idle-stretches-bare.txt). Two starts were
#    stopped: at 35 minutes, after 6 (its estimate, 28 min for 12 pairs a row, came from the
#    cheapest row's pair, while a round of the 10 rows took about 8 minutes: 4 pairs a row, too few
#    for an interval; the estimate now comes from the first round, benchmarks/pairs.py `estimate`);
#    at 55 minutes, after 12, because the script asked fasttext for 300 steps an epoch, whose
#    epochs then took 113-127 s (its steps take 0.3-0.5 s; the outside column runs 6).
echo "=== $(date -u +%T) bare loop"
$P benchmarks.diagnostics.idle_stretches --out /tmp/twinbench-idle-evening-bare.log --seconds 3600 &
BARE_SAMPLER=$!
MINUTES=${MINUTES:-50} bash measurements/2026-12-02/speed-rounds/bare-torch.sh
kill $BARE_SAMPLER 2>/dev/null
$P benchmarks.diagnostics.idle_stretches --read /tmp/twinbench-idle-evening-bare.log > $OUT/idle-stretches-bare.txt
echo "=== $(date -u +%T) done"
kill $SAMPLER 2>/dev/null
$P benchmarks.diagnostics.idle_stretches --read /tmp/twinbench-idle-evening.log > $OUT/idle-stretches.txt
# 4. torch cnn against the bare loop, with and without validation, one run at a time
#    (16:50-16:55 UTC): cnn-overhead/.
bash measurements/2026-12-02/evening/cnn-overhead.sh
# 5. The bare-loop column's TensorFlow half, five rows, 28 minutes (17:29 UTC on), and the table
#    with every column measured on this host type: bare-tensorflow.*, table.md.
bash measurements/2026-12-02/evening/bare-tensorflow.sh
