#!/bin/bash
# Interleaved A/B of each backend's import, ml_dtypes 0.7.0 against the pinned 0.6.0, on core 1.
# Run from the repository root with its .venv (ml_dtypes 0.6.0, requirements.txt):
#   bash measurements/2026-12-06/import-cost/import_ab.sh > measurements/2026-12-06/import-cost/import_ab.txt
# 0.7.0 goes into a temporary folder put first on PYTHONPATH, so both sides share everything else.
set -euo pipefail
other=$(mktemp -d)
trap 'rm -rf "$other"' EXIT
.venv/bin/pip install -q --no-deps --target "$other" ml_dtypes==0.7.0 2>/dev/null
echo "# rep module keras_backend ml_dtypes wall_s user_s sys_s"
for rep in 1 2 3 4 5 6; do
  for what in tensorflow:tensorflow keras:tensorflow keras:jax keras:torch jax:tensorflow ml_dtypes:tensorflow; do
    mod=${what%%:*}; backend=${what##*:}
    for version in 0.7.0 0.6.0; do
      path=""; [ "$version" = 0.7.0 ] && path=$other
      times=$( { PYTHONPATH=$path KERAS_BACKEND=$backend /usr/bin/time -f "%e %U %S" \
        taskset -c 1 .venv/bin/python -c "import $mod"; } 2>&1 | tail -1)
      echo "$rep $mod $backend $version $times"
    done
  done
done
