#!/usr/bin/env bash
# The test suite's parity set (tests/test_parity.py's fixture: every model on every backend in
# one set of stage processes, compare.check_many_and_variants) under glibc's defaults and with
# malloc's large blocks kept (the variables of backend.allocator=retain), alternating, twice
# each; wall, user and system seconds of the whole process tree from /usr/bin/time. A
# certificate measures nothing: only its cost is compared.
set -u
here=measurements/2026-12-07/allocator-setting
code='from twinbench.parity import compare
from twinbench.config.spec import group_choices
compare.check_many_and_variants(group_choices("model"), {})'
for i in 1 2; do
  for mode in default retain; do
    env=()
    [ "$mode" = retain ] && env=(MALLOC_MMAP_MAX_=0 MALLOC_TRIM_THRESHOLD_=68719476736)
    /usr/bin/time -f "$mode $i wall %e user %U sys %S maxrss_kib %M" \
      env "${env[@]}" .venv/bin/python -c "$code" > /dev/null 2>> $here/parity_ab.txt
  done
done
