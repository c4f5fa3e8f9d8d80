"""Planted one-line mutations of either half of each transformer, judged by parity's forward
checks: run by tests/test_layer_parity.py in a fresh process (`python -m
tests.layer_parity_checks`), Keras on the torch runtime beside native torch, so no pytest process
imports a framework and no TensorFlow start-up is paid. Prints one JSON line.

The models are the shipped sizes (conf/model/<name>.yaml, gpt's 57 characters), from one seeded
Keras build whose weights both halves use, on a probe batch of random ids as parity's. Per
mutation: the flat forward bound of before (FORWARD_RTOL/ATOL on the probabilities) and the
per-layer measured bound (frameworks/layer_parity.py) as parity applies them. Each mutation is
one line of one half, chosen to pass the flat bound.
"""

from __future__ import annotations

import contextlib
import json
import os

os.environ["KERAS_BACKEND"] = "torch"  # before keras loads: the keras_torch backend

from frameworks import registry  # loads no framework

if __name__ == "__main__":  # its own process only: test_layer_parity imports the tables below
    registry.keep_to_own_runtime("keras_torch")  # torch only: no TensorFlow or JAX start-up

import keras
import numpy as np
import torch

from frameworks import layer_parity
from frameworks.keras.on_torch import KerasTorchBackend
from frameworks.tolerances import FORWARD_ATOL, FORWARD_RTOL, PROBE
from frameworks.torch_native.backend import TorchBackend
from models import keras_transformer, torch_transformer
from models.catalog import model_config
from twinbench.parity.stages import without_dropout

CHARS = 57  # lowercased nietzsche.txt: gpt's vocabulary in every real run
PROBE_ROWS = 8  # of parity's 64: the shipped widths and lengths, an eighth of the batch


def config(name: str) -> dict:
    cfg = without_dropout(model_config(name))
    arch = {**cfg["arch"], **({"chars": CHARS} if name == "gpt" else {})}
    return {**cfg, "arch": arch}


# half -> (class, the attribute its forward scales the scores by, the head width it is from)
SCALES = {
    "torch": (torch_transformer.SelfAttention, "scale", lambda m: m.shape[1]),
    # Keras: both routes (fused and explicit) read the attribute
    "keras": (keras.layers.MultiHeadAttention, "_inverse_sqrt_key_dim", lambda m: m._key_dim),
}


@contextlib.contextmanager
def _scale_off(half: str):
    """`half`'s attention scale 1/sqrt(head_dim) taken as 1/sqrt(head_dim + 0.01)."""
    cls, attribute, head_dim = SCALES[half]
    init = cls.__init__

    def mutated(self, *args, **kwargs):
        init(self, *args, **kwargs)
        setattr(self, attribute, 1.0 / (head_dim(self) + 0.01) ** 0.5)

    cls.__init__ = mutated
    try:
        yield
    finally:
        cls.__init__ = init


IMDB_EPS = {"ln_epsilon": 1e-5}  # torch's default where the Keras example sets 1e-6
# label -> (model, half, arch change, patch): each changes one line of one half.
MUTATIONS = {
    "gpt torch: tanh GELU": ("gpt", "torch", {"gelu_approximate": True}, None),
    "gpt keras: tanh GELU": ("gpt", "keras", {"gelu_approximate": True}, None),
    "gpt torch: attention scale 1/sqrt(hd + 0.01)": ("gpt", "torch", {}, "scale"),
    "imdb torch: attention scale 1/sqrt(hd + 0.01)": ("imdb_transformer", "torch", {}, "scale"),
    "imdb keras: attention scale 1/sqrt(hd + 0.01)": ("imdb_transformer", "keras", {}, "scale"),
    "imdb torch: LayerNorm eps 1e-6 -> 1e-5": ("imdb_transformer", "torch", IMDB_EPS, None),
    "imdb keras: LayerNorm eps 1e-6 -> 1e-5": ("imdb_transformer", "keras", IMDB_EPS, None),
}  # fmt: skip


class Pair:
    """One model's halves from one Keras build's weights: Keras on torch is the reference."""

    def __init__(self, name: str):
        self.name, self.cfg = name, config(name)
        keras.utils.set_random_seed(0)
        self.keras, self.torch = KerasTorchBackend(), TorchBackend()
        model = self.keras.build(name, self.cfg, "cpu")
        self.weights = self.keras.export_weights(model, name)
        arch = self.cfg["arch"]
        vocab = arch.get("chars") or arch["max_features"]
        rng = np.random.default_rng(0)
        self.x = rng.integers(0, vocab, (PROBE_ROWS, arch["maxlen"])).astype(np.int32)
        self.reference = self.run("keras", {})

    def run(self, half: str, change: dict) -> dict[str, np.ndarray]:
        """The probe's probabilities and per-layer outputs of one half, `change` applied."""
        backend = self.keras if half == "keras" else self.torch
        cfg = {**self.cfg, "arch": {**self.cfg["arch"], **change}}
        model = backend.build(self.name, cfg, "cpu")
        backend.import_weights(model, self.name, self.weights)
        out = {"probe_out": backend.predict(model, self.name, self.x)}
        out.update(layer_parity.record(backend, model, self.name, self.x))
        return out

    def judge(self, half: str, change: dict) -> dict:
        ours = self.run(half, change)
        # the other half stays unmutated: against a mutated Keras, torch is the unmutated one
        ref, other = (self.reference, ours) if half == "torch" else (self.run("torch", {}), ours)
        gap = np.abs(ref["probe_out"] - other["probe_out"])
        figures = layer_parity.compare(self.name, ref, other)
        return {
            "flat_forward_passes": bool(
                np.all(gap <= FORWARD_ATOL + FORWARD_RTOL * np.abs(ref["probe_out"]))
            ),
            "output_max_abs_diff": float(gap.max()),
            "layers": figures["layers"],
            "output_roundings": figures["output"],
            "bound": figures["bound"],
            "failures": layer_parity.judge(self.name, figures),
        }


# label -> (attention kernel, the line of SelfAttention.forward replaced, its replacement)
DROPOUT_MUTATIONS = {
    "fused: dropout_p not passed": ("fused", "dropout_p=drop,", "dropout_p=0.0,"),
    "fused: dropout_p halved": ("fused", "dropout_p=drop,", "dropout_p=drop / 2,"),
    "explicit: dropout module skipped": (
        "explicit", "self.attention_dropout(scores.softmax(dim=-1))", "scores.softmax(dim=-1)"
    ),
}  # fmt: skip


def _mutated_forward(old: str, new: str):
    """SelfAttention.forward with one line of its source changed: the planted mutation."""
    import inspect
    import textwrap

    source = textwrap.dedent(inspect.getsource(torch_transformer.SelfAttention.forward))
    assert old in source, f"the line to mutate is gone: {old}"
    scope = dict(vars(torch_transformer))
    exec(compile(source.replace(old, new), torch_transformer.__file__, "exec"), scope)
    return scope["forward"]


def attention_dropout(kernel: str, mutation: tuple[str, str] | None) -> dict:
    """gpt's torch half in training mode (one block: a mutation of SelfAttention changes every
    block alike): parity's attention-dropout probe and verdict, and the layer probe's rates."""
    from frameworks.torch_native.stochastic import attention_dropout_probe, dropout_probe
    from twinbench.parity import distributions
    from twinbench.parity.draws import PREFIX, settings

    conf = settings()["attention_dropout"]
    cfg = model_config("gpt")
    cfg = {**cfg, "arch": {**cfg["arch"], "chars": CHARS, "layers": 1, "attention": kernel}}
    model = TorchBackend().build("gpt", cfg, "cpu")
    original = torch_transformer.SelfAttention.forward
    if mutation:
        torch_transformer.SelfAttention.forward = _mutated_forward(*mutation)
    try:
        torch.manual_seed(0)
        found = attention_dropout_probe(model, conf["tokens"], conf["draws"], conf["seed"])
    finally:
        torch_transformer.SelfAttention.forward = original
    arrays = {
        f"{PREFIX}attention_dropout:{i}:{name}": np.array(json.dumps([rate, figures]))
        for i, (name, rate, figures) in enumerate(found)
    }
    figures, failures = distributions.check_attention_dropout(arrays)
    layer_rates = {
        name: [rate, float(np.mean(out == 0))]
        for name, rate, out in dropout_probe(model, 100_000)
        if "attn" in name
    }
    return {"figures": figures, "failures": failures, "layer_probe": layer_rates}


# Keras' half: ExplicitAttention hands Keras' _compute_attention training=False (one line of
# models/keras_transformer.py), so its Dropout layer, rate in place, never drops.
KERAS_DROPOUT_LINE = "query, key, value, attention_mask, training, return_attention_scores=True"
KERAS_DROPOUT_MUTATION = "query, key, value, attention_mask, False, return_attention_scores=True"


def keras_attention_dropout(mutated: bool) -> dict:
    """gpt's Keras half (explicit kernel, one block) in training mode: parity's attention-
    dropout probe and verdict, with ExplicitAttention's one line mutated or not."""
    import inspect
    import textwrap

    from twinbench.parity import distributions
    from twinbench.parity.draws import PREFIX, settings

    conf = settings()["attention_dropout"]
    cfg = model_config("gpt")
    cfg = {**cfg, "arch": {**cfg["arch"], "chars": CHARS, "layers": 1, "attention": "explicit"}}
    cls = keras_transformer.ExplicitAttention
    original = cls._compute_attention
    if mutated:
        source = textwrap.dedent(inspect.getsource(original))
        assert KERAS_DROPOUT_LINE in source, "the line to mutate is gone"
        source = source.replace(KERAS_DROPOUT_LINE, KERAS_DROPOUT_MUTATION)
        # compiled outside its class, the method names its class for super()
        source = source.replace("super()", "super(ExplicitAttention, self)")
        scope = dict(vars(keras_transformer))
        exec(compile(source, keras_transformer.__file__, "exec"), scope)
        cls._compute_attention = scope["_compute_attention"]
    try:
        keras.utils.set_random_seed(0)
        backend = KerasTorchBackend()
        model = backend.build("gpt", cfg, "cpu")
        found = backend.attention_dropout_probe(
            model, "gpt", conf["tokens"], conf["draws"], conf["seed"]
        )
    finally:
        cls._compute_attention = original
    arrays = {
        f"{PREFIX}attention_dropout:{i}:{name}": np.array(json.dumps([rate, figures]))
        for i, (name, rate, figures) in enumerate(found)
    }
    figures, failures = distributions.check_attention_dropout(arrays)
    return {"figures": figures, "failures": failures}


# A residual dropout the forward no longer calls, its module left in place; one it calls in
# inference mode, so it runs and drops nothing; one it calls and drops with, then discards
# (one line each of models/gpt.py's torch half).
RESIDUAL_LINE = 'h = h + blk("drop_1")(blk("attn")(blk("ln_1")(h)))'
RESIDUAL_MUTATIONS = {
    "skipped": 'h = h + blk("attn")(blk("ln_1")(h))',
    "called in eval mode": 'h = h + blk("drop_1").eval()(blk("attn")(blk("ln_1")(h)))',
    "output discarded": 'h = h + blk("attn")(blk("ln_1")(h)) + 0 * blk("drop_1")(h)',
}


def dropout_in_forward(mutation: str | None) -> dict:
    """gpt's torch half in one training forward: each dropout module with a rate by its effect
    (parity's check), and what the layer probe of before reads of drop_1."""
    import inspect
    import types

    from frameworks.torch_native.stochastic import dropout_in_forward as effect_of
    from frameworks.torch_native.stochastic import dropout_probe
    from models import gpt

    source = inspect.getsource(gpt)
    assert RESIDUAL_LINE in source, "the line to mutate is gone"
    if mutation:
        source = source.replace(RESIDUAL_LINE, RESIDUAL_MUTATIONS[mutation])
    module = types.ModuleType("gpt_mutated")
    exec(compile(source, gpt.__file__, "exec"), module.__dict__)
    arch = {**model_config("gpt")["arch"], "chars": CHARS, "layers": 1}
    torch.manual_seed(0)
    model = module.torch_model(**arch)
    x = np.random.default_rng(0).integers(0, CHARS, (2, arch["maxlen"])).astype(np.int64)
    seen = effect_of(model, x)
    probe = {n: [r, float(np.mean(o == 0))] for n, r, o in dropout_probe(model, 100_000)}
    return {**_judged(seen), "layer_probe_drop_1": probe["h0_drop_1"]}


def _judged(seen: dict) -> dict:
    """A side's dropout_in_forward figures through parity's check, as draws.py stores them."""
    from twinbench.parity import distributions
    from twinbench.parity.draws import in_forward_arrays

    figures, failures = distributions.check_dropout_in_forward(in_forward_arrays(seen), "backend")
    return {"seen": seen, "figures": figures, "failures": failures}


# Keras' block (below) as written, and its one-line mutations: its residual dropout called
# with training=False (it runs and drops nothing), or called and its output discarded.
KERAS_BLOCK_MUTATIONS = ("training=False", "output discarded")


def keras_dropout_in_forward(mutation: str | None) -> dict:
    """Keras' probe on a block written as a layer of its own, whose residual dropout line is
    mutated as `mutation` says: a functional model passes its training flag to each layer it
    calls, but a layer's own call decides for the layers inside it, and what it does with
    their outputs."""

    class Block(keras.layers.Layer):
        def __init__(self, width: int, rate: float, **kwargs):
            super().__init__(**kwargs)
            self.dense = keras.layers.Dense(width, activation="relu")
            self.drop = keras.layers.Dropout(rate)

        def call(self, x, training=None):
            if mutation == "training=False":
                return x + self.drop(self.dense(x), training=False)
            if mutation == "output discarded":
                return x + self.dense(x) + 0 * self.drop(self.dense(x), training=training)
            return x + self.drop(self.dense(x), training=training)

    from frameworks.keras.stochastic import dropout_in_forward as effect_of

    keras.utils.set_random_seed(0)
    inputs = keras.Input((256,))
    h = keras.layers.Dropout(0.2, name="outer")(inputs)
    model = keras.Model(inputs, Block(256, 0.2, name="block")(h))
    x = np.random.default_rng(0).normal(size=(8, 256)).astype("float32")
    return _judged(effect_of(model, x))


def main() -> None:
    torch.manual_seed(0)
    torch.set_num_threads(1)
    pairs = {name: Pair(name) for name in ("gpt", "imdb_transformer")}
    out = {"unmutated": {n: p.judge("torch", {}) for n, p in pairs.items()}, "mutated": {}}
    for label, (name, half, change, patch) in MUTATIONS.items():
        with _scale_off(half) if patch == "scale" else contextlib.nullcontext():
            out["mutated"][label] = pairs[name].judge(half, change)
    out["attention_dropout"] = {
        f"{kernel}: unmutated": attention_dropout(kernel, None) for kernel in ("fused", "explicit")
    }
    for label, (kernel, old, new) in DROPOUT_MUTATIONS.items():
        out["attention_dropout"][label] = attention_dropout(kernel, (old, new))
    out["dropout_in_forward"] = {
        label: dropout_in_forward(label) for label in (None, *RESIDUAL_MUTATIONS)
    }
    out["keras_dropout_in_forward"] = {
        "unmutated": keras_dropout_in_forward(None),
        **{label: keras_dropout_in_forward(label) for label in KERAS_BLOCK_MUTATIONS},
    }
    from tests.dropout_input_checks import WRONG_TENSOR, dropout_inputs

    out["dropout_inputs"] = {
        "unmutated": dropout_inputs(None),
        **{label: dropout_inputs(label) for label in WRONG_TENSOR},
    }
    out["keras_attention_dropout"] = {
        "unmutated": keras_attention_dropout(False), "mutated": keras_attention_dropout(True)
    }  # fmt: skip
    print(json.dumps(out))


if __name__ == "__main__":
    from twinbench.launch.lifeline import leave_without_teardown

    assert PROBE >= PROBE_ROWS and keras_transformer  # the modules whose lines are mutated
    main()
    leave_without_teardown(0)  # printed: skip the framework's teardown (about a second)
