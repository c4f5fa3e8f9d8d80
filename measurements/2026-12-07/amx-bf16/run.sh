#!/bin/sh
# Issue 42 item 7 on a host whose flags show AMX (amx_tile, amx_bf16) beside avx512_bf16: the
# bfloat16 matrix of docs/findings/2026-12-03-bf16-on-bf16-units.md, unchanged (its run.sh: one
# run a cell, 1 core, 40 steps with 10 of warm-up, each run's kernel probe, per-layer profile for
# torch and TensorFlow, the bfloat16 GEMM probed at the float32 one's size). From the repository
# root, on a quiet machine. (The evening's run executed a copy of those commands; this calls
# them.)
set -e
sh measurements/2026-12-03/bf16-units/run.sh ${1:-results/amx-bf16-2026-12-07} \
  measurements/2026-12-07/amx-bf16/tables.md
