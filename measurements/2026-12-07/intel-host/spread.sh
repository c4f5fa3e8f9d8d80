# The forward bounds' false alarms on the Intel host (docs/equivalence.md: 20 weight draws per
# model, each backend against Keras on TensorFlow), then the dropout sites' inputs over 20 seeds.
set -e
M=measurements/2026-12-07/intel-host
python -m twinbench.parity.spread gpt imdb_transformer --seeds 20 2>&1 | tee $M/parity-spread.log
python -m benchmarks.diagnostics.dropout_inputs_seeds gpt imdb_transformer mlp --seeds 20 2>&1 | tee $M/dropout-inputs-seeds.log
