#!/bin/bash
# The allocator page's A/B (docs/findings/2026-12-07-allocator-page-faults.md) on the Intel host:
# torch's steady step under glibc's default malloc and with its mmap off, three pairs each of the
# three workloads the page found most affected, the arm that goes first alternating. MALLOC_*
# variables are refused since aff8cd6, so this runs in a checkout of 4146388 (before they were):
#   git worktree add /tmp/old 4146388 && ln -s $PWD/.venv /tmp/old/.venv
#   (cd /tmp/old && bash $OLDPWD/measurements/2026-12-07/intel-host/allocator.sh) > allocator-ab.txt
set -uo pipefail
source "$(dirname "$0")/../allocator-page-faults/one_run.sh"
out=$(mktemp -d)
echo "# rep backend model arm steady_step_median_s"
for rep in 1 2 3; do
  for model in fasttext charlstm textgen; do
    if [ $((rep % 2)) = 1 ]; then arms="default no_mmap"; else arms="no_mmap default"; fi
    for arm in $arms; do one_run $rep torch $model $arm; done
  done
done
rm -rf "$out"
