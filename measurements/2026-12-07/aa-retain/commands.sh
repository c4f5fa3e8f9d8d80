#!/bin/sh
# Issue 40 item 2 under glibc's retain allocator on both halves: the A/A campaign of
# measurements/2026-12-06/aa-k20 (the design README command 1 runs: resident worker pairs of 20
# blocks a side, fresh workers every unit; native torch mlp against itself on every core (2),
# 165 s of units a sequence), with --allocator retain, the setting under which the speed table
# decided 33 of 35 cells. 2026-12-07 on the Intel host with AMX (family 6 model 167), from a
# clone of the checkout at ffe5a8f, nothing else timing on the machine. The JSON is rewritten
# after every sequence; --resume goes on from it on the same machine type.
M=measurements/2026-12-07/aa-retain
# 1. 40 sequences (23:22-23:45 UTC), then 20 more resumed from the same file (23:45-23:57).
python -m twinbench.cli aa --backend torch --model mlp --sequences 40 --budget-s 165 \
  --allocator retain --out $M/aa-torch-mlp-all-retain.json --resume
python -m twinbench.cli aa --backend torch --model mlp --sequences 60 --budget-s 165 \
  --allocator retain --out $M/aa-torch-mlp-all-retain.json --resume
# 2. The same design under glibc's default, right after, for the spread and cost on this host
#    (23:57-00:19).
python -m twinbench.cli aa --backend torch --model mlp --sequences 8 --budget-s 165 \
  --out $M/aa-torch-mlp-all-default.json --resume
# 3. Both summarised (summary.txt).
python $M/summary.py $M/aa-torch-mlp-all-retain.json $M/aa-torch-mlp-all-default.json
