# Sourced by ab.sh and repeats.sh: one_run LABEL BACKEND MODEL ARM prints "LABEL BACKEND MODEL
# ARM <steady step median, s>" for one 1-core, 40-step run under glibc's defaults (ARM=default)
# or with malloc's mmap off and no trimming (ARM=no_mmap). Needs $out, a scratch folder.
one_run() {
  local label=$1 backend=$2 model=$3 arm=$4 env=()
  [ "$arm" = no_mmap ] && env=(MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=68719476736)
  rm -rf "$out/run"
  env "${env[@]}" .venv/bin/python run.py backend=$backend model=$model cpus=1 epochs=1 \
    max_steps=40 measure.peak_probe=false report=false hydra.run.dir="$out/run" >/dev/null 2>&1
  .venv/bin/python -c "import json,sys; r=json.load(open(sys.argv[1])); \
print(*sys.argv[2:], r['timing']['steady_step_s']['median'])" \
    "$out/run/result.json" $label $backend $model $arm || echo "$label $backend $model $arm failed"
}
