"""How far each dropout site's input lies from its twin's when nothing is wrong, over seeds:
parity's wrong-tensor check (twinbench/parity/dropout_inputs.py, docs/equivalence.md) judged on
fresh weights and probe rows per seed, Keras on torch as the reference beside native torch in one
process (the certificate's reference is TensorFlow; the parity stages measure that pair).

    python -m benchmarks.diagnostics.dropout_inputs_seeds gpt imdb_transformer mlp --seeds 20

Prints each model's largest distance over its seeds and sites against `handed_rtol`, and how
many seeds failed.
"""

from __future__ import annotations

import os

os.environ.setdefault("KERAS_BACKEND", "torch")  # before keras loads

import argparse
import tempfile
from pathlib import Path

from frameworks import registry


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("models", nargs="+")
    parser.add_argument("--seeds", type=int, default=20)
    args = parser.parse_args()
    registry.keep_to_own_runtime("keras_torch")  # torch only: no TensorFlow or JAX start-up
    import keras
    import torch

    from frameworks.keras.on_torch import KerasTorchBackend
    from frameworks.torch_native.backend import TorchBackend
    from models.catalog import model_config
    from twinbench.parity import draws, dropout_inputs, stages

    torch.set_num_threads(1)
    reference, other = KerasTorchBackend(), TorchBackend()
    rows = draws.settings()["dropout"]["forward_rows"]
    rtol = draws.settings()["dropout"]["handed_rtol"]
    for model in args.models:
        worst, failed = 0.0, 0
        for seed in range(args.seeds):
            with tempfile.TemporaryDirectory() as tmp:
                x, _, _, cfg = stages._probe_and_batches(
                    stages.without_dropout(model_config(model)), seed, Path(tmp)
                )
            cfg = draws.training_config(model, cfg)
            keras.utils.set_random_seed(seed)
            torch.manual_seed(seed)
            theirs = reference.build(model, cfg, "cpu")
            mine = other.build(model, cfg, "cpu")
            other.import_weights(mine, model, reference.export_weights(theirs, model))
            arrays = [
                draws.in_forward_arrays(backend.dropout_in_forward(m, x[:rows]))
                for backend, m in ((reference, theirs), (other, mine))
            ]
            figures, failures = dropout_inputs.compare_dropout_inputs(*arrays)
            distances = [s["distance"] for s in figures["sites"].values()]
            worst = max([worst, *(d for d in distances if d is not None)])
            failed += bool(failures)
            if failures:
                print(f"{model} seed {seed}: {failures}", flush=True)
        print(
            f"{model}: {failed} of {args.seeds} seeds failed; largest distance {worst:.3g} "
            f"(bound {rtol:g})",
            flush=True,
        )


if __name__ == "__main__":
    main()
