#!/bin/sh
# Issue 40 item 2: the resident design's false-decision rate on real A/A runs, on this machine.
# 2026-12-03 from 18:35 UTC, AMD EPYC with AVX-512 + avx512_bf16 (the project's Zen 5 type),
# 2 cores; native torch mlp against itself at 1 core (core 0), 165 s of units a sequence (one
# core count's share of README command 1), fresh worker pairs every unit. A helper's
# installs and targeted tests ran on core 1 at nice 19 for the whole campaign. The JSON is
# rewritten after every sequence; --resume goes on from it.
python -m twinbench.cli aa --backend torch --model mlp --cpus 1 --sequences 40 --budget-s 165 \
  --out measurements/2026-12-03/aa/aa-torch-mlp-cpus1.json --resume
# What happened (2026-12-03): sequences 1-16 (18:37-19:24 UTC) ran as planned; at 19:24 new code
# was merged into the checkout the campaign ran from, its fresh workers no longer matched the
# running parent, and every worker pair of sequences 17-40 failed. The campaign counted those
# as sequences without a false decision; it now stops in one line instead (aa_campaign.run).
# aa-torch-mlp-cpus1.json keeps sequences 1-16 only (sequence 17 lost units to the change too),
# rebuilt with aa_campaign.summary; the raw file was not kept. Run a campaign from its own clone.
