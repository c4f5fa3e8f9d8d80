"""Planted wrong-tensor dropouts, judged by parity's check of what each dropout site is handed
(twinbench/parity/dropout_inputs.py): run inside tests/layer_parity_checks.py's process (its
main() calls dropout_inputs), whose module set Keras on the torch runtime before Keras loaded."""

from __future__ import annotations

import keras
import numpy as np
import torch

from frameworks.keras.on_torch import KerasTorchBackend
from frameworks.torch_native.backend import TorchBackend
from tests.layer_parity_checks import RESIDUAL_LINE, config

# A residual dropout at its rate on the wrong tensor, one line of either half: gpt's torch half
# dropping the attention's input instead of its output, imdb's Keras half the residual stream
# instead of the attention's branch. Each site alone still runs, drops at its rate and moves
# the output; only what it is handed differs from its twin's.
WRONG_TENSOR = {
    "gpt torch: drop_1 on the attention's input": (
        "gpt", "torch", RESIDUAL_LINE, 'h = h + blk("attn")(blk("drop_1")(blk("ln_1")(h)))'
    ),
    "imdb keras: the first residual dropout on the stream": (
        "imdb_transformer", "keras", "layers.Add()([h, layers.Dropout(dropout)(a)])",
        "layers.Add()([layers.Dropout(dropout)(h), a])",
    ),
}  # fmt: skip


def _source_model(name: str, half: str, arch: dict, line: tuple[str, str] | None):
    """`half` of models/<name>.py built from its source, `line` (old, new) replaced."""
    import importlib
    import inspect
    import types

    original = importlib.import_module(f"models.{name}")
    source = inspect.getsource(original)
    if line:
        assert line[0] in source, f"the line to mutate is gone from models/{name}.py"
        source = source.replace(*line)
    module = types.ModuleType(f"{name}_mutated")
    exec(compile(source, original.__file__, "exec"), module.__dict__)
    return (module.torch_model if half == "torch" else module.keras_model)(**arch)


def dropout_inputs(label: str | None) -> dict:
    """Each dropout site of the torch half against its Keras twin by what it is handed (parity's
    check, parity/dropout_inputs.py), on one Keras build's weights, as draws.py measures them;
    `label` names a WRONG_TENSOR mutation (None: both models unmutated)."""
    from frameworks.keras.stochastic import dropout_in_forward as keras_effect
    from frameworks.torch_native.stochastic import dropout_in_forward as torch_effect
    from twinbench.parity import dropout_inputs as judge
    from twinbench.parity.draws import in_forward_arrays, training_config

    names = [WRONG_TENSOR[label][0]] if label else ["gpt", "imdb_transformer"]
    out = {}
    for name in names:
        mutation = WRONG_TENSOR[label] if label else None
        line = {
            h: mutation[2:] if mutation and mutation[1] == h else None for h in ("torch", "keras")
        }
        arch = training_config(name, config(name))["arch"]
        keras.utils.set_random_seed(0)
        torch.manual_seed(0)
        reference = _source_model(name, "keras", arch, line["keras"])
        other = _source_model(name, "torch", arch, line["torch"])
        weights = KerasTorchBackend().export_weights(reference, name)
        TorchBackend().import_weights(other, name, weights)
        vocab = arch.get("chars") or arch["max_features"]
        x = np.random.default_rng(0).integers(0, vocab, (2, arch["maxlen"]))
        seen = {"reference": keras_effect(reference, x.astype(np.int32))}
        seen["backend"] = torch_effect(other, x.astype(np.int64))
        figures, failures = judge.compare_dropout_inputs(
            in_forward_arrays(seen["reference"]), in_forward_arrays(seen["backend"])
        )
        out[name] = {"seen": seen, "figures": figures, "failures": failures}
    return out
