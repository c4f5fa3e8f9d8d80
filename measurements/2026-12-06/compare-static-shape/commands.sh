# README command 1 five times in a row on the code where TensorFlow's traced step knows its batch
# size (5d258b0; run at 10c1b49), install excluded, from a fresh clone's root with nothing else
# running (2026-12-06 02:43-03:12 UTC, Zen 5 type). Each run's screen is run-N.log (progress
# lines kept), its decisions decisions-<sweep>.json, start and end times times.txt.
set -u
OUT=${OUT:-measurements/2026-12-06/compare-static-shape}
for i in 1 2 3 4 5; do
  echo "run $i start $(date -u +%H:%M:%S)" >> "$OUT/times.txt"
  /usr/bin/time -f "wall %e s user %U sys %S" .venv/bin/python run.py +experiment=compare \
    > "$OUT/run-$i.log" 2>&1
  echo "run $i end $(date -u +%H:%M:%S) rc=$?" >> "$OUT/times.txt"
done
# The pooled 2-core units of the five runs (a fixed-n description, not a decision):
python3 - "$OUT" <<'PY'
import glob, json, math, statistics as st, sys
logs = [math.log(r) for f in sorted(glob.glob(f"{sys.argv[1]}/decisions-*.json"))
        for r in json.load(open(f))["series"][1]["wall_ratios"]]
m, h = st.fmean(logs), 1.98 * st.stdev(logs) / math.sqrt(len(logs))
print(len(logs), "units", *(f"{math.exp(v):.3f}" for v in (m, m - h, m + h)), f"sd {st.stdev(logs):.3f}")
PY
# Where the 2-core units' spread comes from (components.md): each worker's steps.json of the five
# sweeps is kept under sweeps/ (copied from results/sweeps/<time>/, folder layout unchanged).
python -m benchmarks.diagnostics.resident_components "$OUT"/sweeps/* > "$OUT/components.md"
