"""Keras-against-torch checks of the transformer workloads, run by tests/test_transformers.py in
a fresh process (`python -m tests.transformer_checks`): Keras on the torch runtime and native
torch in one process, so no pytest process imports a framework, and no TensorFlow start-up is
paid. Prints one JSON line: every figure the tests assert on.

Small versions of both models (the shipped layer names, tiny widths) so that each check costs
milliseconds. Every "mutation" changes one thing on torch's side only: the tests assert the
unmutated pair agrees within parity's tolerances and each mutated pair does not.
"""

from __future__ import annotations

import json
import os

os.environ["KERAS_BACKEND"] = "torch"  # before keras loads: the keras_torch backend

from frameworks import registry  # loads no framework

if __name__ == "__main__":  # its own process only: test_transformers imports the configs below
    registry.keep_to_own_runtime("keras_torch")  # torch only: no TensorFlow or JAX start-up

import numpy as np
import torch

from frameworks import tolerances
from frameworks.keras.on_torch import KerasTorchBackend
from frameworks.tolerances import FORWARD_ATOL, FORWARD_RTOL
from frameworks.torch_native.backend import TorchBackend
from twinbench.parity import compare

GPT = {
    "maxlen": 8, "chars": 11, "width": 16, "heads": 2, "layers": 4, "dropout": 0.0,
    "ln_epsilon": 1e-5, "gelu_approximate": False, "tie_head": True, "attention": "fused",
}  # fmt: skip
IMDB = {
    "max_features": 50, "maxlen": 12, "width": 8, "heads": 2, "key_dim": 8, "ff_dim": 8,
    "hidden": 5, "classes": 2, "dropout": 0.0, "ln_epsilon": 1e-6, "attention": "fused",
}  # fmt: skip
# gpt.yaml's optimizer, with a clipping norm small enough to bind on every step of these tiny
# batches (the figures include the unclipped norm to show it does) and a short warm-up.
ADAMW = {
    "name": "adamw", "formula": "2017", "lr": 1e-3, "beta_1": 0.9, "beta_2": 0.99,
    "eps": 1e-8, "weight_decay": 0.1, "weight_decay_on": "matrices", "clip_global_norm": 0.1,
    "warmup_steps": 3, "cosine_steps": 20, "min_lr": 1e-4,
}  # fmt: skip
ADAM = {"name": "adam", "formula": "2017", "lr": 1e-3, "beta_1": 0.9, "beta_2": 0.999,
        "eps": 1e-7, "decay": 0.0}  # fmt: skip
# Each changes torch's half only; parity must fail each (its forward or its training test).
ARCH_MUTATIONS = {
    "tanh GELU": ("gpt", {"gelu_approximate": True}),
    "untied head": ("gpt", {"tie_head": False}),
    "LayerNorm eps 1e-3": ("gpt", {"ln_epsilon": 1e-3}),
    "imdb LayerNorm eps 1e-3": ("imdb_transformer", {"ln_epsilon": 1e-3}),
}
OPTIMIZER_MUTATIONS = {
    "decay on LayerNorm and biases": {"weight_decay_on": "all"},
    "decay on embeddings": {"weight_decay_on": "matrices_and_embeddings"},
    "clipping off": {"clip_global_norm": 0.0},
    "warm-up off": {"warmup_steps": 0},
    "Adam epsilon after bias correction": {"formula": "builtin"},
}
STEPS = 4


def batch(name: str, arch: dict, n: int, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Batch `seed` of random ids and labels: every pair sees the same batches."""
    rng = np.random.default_rng(seed)
    vocab = arch.get("chars") or arch["max_features"]
    x = rng.integers(0, vocab, (n, arch["maxlen"])).astype(np.int32)
    y = rng.integers(0, vocab, (n, arch["maxlen"])) if name == "gpt" else rng.integers(0, 2, n)
    return x, y.astype(np.int64)


def run(backend, model, name: str, arch: dict, spec: dict) -> dict:
    """Forward probabilities on a probe batch, then STEPS training steps: what parity records."""
    probe = backend.predict(model, name, batch(name, arch, 4, seed=100)[0])
    step = backend.make_step(model, {"name": name, "arch": arch, "optimizer": spec})
    losses = [step(*batch(name, arch, 8, seed=k)) for k in range(STEPS)]
    rates = backend.learning_rates(list(range(STEPS)))
    weights = {w: np.array(v, copy=True) for w, v in backend.export_weights(model, name).items()}
    return {
        "probe": probe,
        "losses": np.array(losses),
        "rates": np.array(rates),
        "weights": weights,
    }


class Reference:
    """The Keras half of one model, built and trained once: every torch variant starts from its
    initial weights and is compared with its run."""

    def __init__(self, name: str, arch: dict, spec: dict):
        backend = KerasTorchBackend()
        model = backend.build(name, {"arch": arch}, "cpu")
        self.name, self.arch, self.spec = name, arch, spec
        self.initial = backend.export_weights(model, name)
        self.params = backend.count_params(model)
        self.run = run(backend, model, name, arch, spec)

    def against(self, arch_change: dict, spec_change: dict) -> dict:
        """torch with one change: its forward gap and parity's training verdict."""
        backend = TorchBackend()
        arch = {**self.arch, **arch_change}
        model = backend.build(self.name, {"arch": arch}, "cpu")
        params = backend.count_params(model)
        backend.import_weights(model, self.name, self.initial)
        ours = run(backend, model, self.name, arch, {**self.spec, **spec_change})
        _, failures = compare.compare_training(
            self.spec, self.run, ours, list(range(STEPS)), ("keras_torch", "torch"),
            tolerances.OUTLIER_FRACTION,
        )  # fmt: skip
        gap = np.abs(self.run["probe"] - ours["probe"])
        # parity's forward test: |a - b| <= atol + rtol * |a| everywhere
        allowed = FORWARD_ATOL + FORWARD_RTOL * np.abs(self.run["probe"])
        return {
            "params": params,
            "forward_max_abs_diff": float(gap.max()),
            "forward_passes": bool(np.all(gap <= allowed)),
            "training_failures": failures,
        }


def gradient_norm(reference: Reference) -> float:
    """The unclipped global gradient norm of the tiny gpt's first batch (clipping binds if it
    is above the clip norm)."""
    backend = TorchBackend()
    model = backend.build("gpt", {"arch": GPT}, "cpu")
    backend.import_weights(model, "gpt", reference.initial)
    x, y = (torch.from_numpy(a) for a in batch("gpt", GPT, 8, seed=0))
    torch.nn.functional.cross_entropy(model(x).flatten(0, 1), y.flatten()).backward()
    return float(torch.sqrt(sum((p.grad**2).sum() for p in model.parameters())))


def main() -> None:
    torch.manual_seed(0)
    gpt, imdb = Reference("gpt", GPT, ADAMW), Reference("imdb_transformer", IMDB, ADAM)
    out = {"keras_params": {"gpt": gpt.params, "imdb_transformer": imdb.params}, "pairs": {}}
    for reference in (gpt, imdb):
        out["pairs"][reference.name] = reference.against({}, {})
        out["pairs"][f"{reference.name} explicit attention"] = reference.against(
            {"attention": "explicit"}, {}
        )
    for label, (name, change) in ARCH_MUTATIONS.items():
        out["pairs"][label] = (gpt if name == "gpt" else imdb).against(change, {})
    for label, change in OPTIMIZER_MUTATIONS.items():
        out["pairs"][label] = gpt.against({}, change)
    out["gradient_norm"] = gradient_norm(gpt)
    print(json.dumps(out))


if __name__ == "__main__":
    from twinbench.launch.lifeline import leave_without_teardown

    main()
    leave_without_teardown(0)  # printed: skip the framework's teardown (about a second)
