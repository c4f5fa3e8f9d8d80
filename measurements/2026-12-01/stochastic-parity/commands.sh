#!/usr/bin/env bash
# Issue 24, stochastic equivalence and the loop fingerprint: every figure of
# docs/findings/2026-12-01-stochastic-parity.md, from the repository root (shared 2-core
# AMD EPYC Zen 3, AVX2; 4 other engineers' jobs running: these are pass/fail and p-values, no
# timings).
set -u
cd "$(dirname "$0")/../../.."
D=measurements/2026-12-01/stochastic-parity
PY=${PY:-.venv/bin/python}
$PY -m benchmarks.diagnostics.stochastic_seeds mlp cifar10_cnn bilstm --backend torch --seeds 3-12 > $D/seeds-torch.log 2>&1
$PY -m benchmarks.diagnostics.stochastic_backends > $D/backends.log 2>&1
$PY -m benchmarks.diagnostics.stochastic_mutations > $D/mutations.log 2>&1
$PY -m pytest tests/test_stochastic_parity.py tests/test_loop_print.py -q --durations=5 > $D/tests.log 2>&1
