"""Which update formula the optimizers follow: one formula per optimizer, the same in both
frameworks (docs/equivalence.md). Framework-neutral: validated in the parent before a worker starts.

"2017" (the default) is the formula of Keras 2.0.x, which the 2017 benchmark ran, and of the
torch of that year; "builtin" is each framework's current built-in optimizer as shipped.

    rmsprop   2017: w -= lr * g / (sqrt(v) + eps)            Keras 2.0, torch (all versions)
              Keras 3 built-in: w -= lr * g / sqrt(v + eps)  (eps inside the root)
    adam      2017: w -= lr * sqrt(1 - b2^t) / (1 - b1^t) * m / (sqrt(v) + eps)
              Keras 2.0, tf.train.AdamOptimizer (TensorLayer), torch 0.x and Keras 3 alike;
              torch >= 1.0 built-in: w -= lr / (1 - b1^t) * m / (sqrt(v) / sqrt(1 - b2^t) + eps)
              (eps added after bias correction: larger by 1 / sqrt(1 - b2^t) early on)
    adadelta  one formula everywhere (eps inside both roots)

Only the 2017 formula makes the two halves compute the same thing; "builtin" is there for users
who want each framework's out-of-the-box optimizer, and the parity check says it differs.
"""

from __future__ import annotations

import math
from typing import Any

from frameworks.settings import SettingError

FORMULAS = ("2017", "builtin")
# The update rules both halves map (frameworks/torch_native/optimizers.py, keras/optimizers.py)
# and the model.optimizer keys each reads: another name, or a rule switched on the command line
# without its keys (model.optimizer.name=adam on an RMSprop model), failed only inside the
# worker, after its framework had loaded.
HYPERPARAMETERS = {
    "adadelta": ("lr", "rho", "eps"),
    "adam": ("lr", "beta_1", "beta_2", "eps"),
    "adamw": ("lr", "beta_1", "beta_2", "eps", "weight_decay"),
    "rmsprop": ("lr", "rho", "eps"),
}
OPTIMIZERS = tuple(HYPERPARAMETERS)
DEFAULT = "2017"
# optimizer -> the model API whose built-in differs from the 2017 formula (and so gets a
# replacement there); both APIs agree on the others. Keras' optimizers are one code on every
# Keras runtime (frameworks/keras/optimizers.py).
DIFFERS_IN = {"rmsprop": "keras", "adam": "torch", "adamw": "torch"}


class FormulaError(SettingError):
    """A formula no optimizer here implements: refused before a worker starts."""


def check(spec: dict[str, Any]) -> None:
    """An optimizer spec both halves can build: a known rule, its keys and a known formula
    (FormulaError otherwise, before any framework loads)."""
    name = spec.get("name")
    if name not in HYPERPARAMETERS:
        raise FormulaError(
            f"unknown model.optimizer.name {name!r}; choose one of: {', '.join(OPTIMIZERS)}"
        )
    missing = [k for k in HYPERPARAMETERS[name] if spec.get(k) is None]
    if missing:
        raise FormulaError(
            f"model.optimizer.name={name} reads {', '.join(HYPERPARAMETERS[name])}; this model's "
            f"optimizer has no {', '.join(missing)}: give them values in its conf/model/ yaml "
            "(the command line cannot add keys a model does not have)"
        )
    formula_of(spec)


def formula_of(spec: dict[str, Any]) -> str:
    """The formula an optimizer spec asks for (conf/model/<name>.yaml `optimizer.formula`)."""
    value = str(spec.get("formula", DEFAULT))
    if value not in FORMULAS:
        raise FormulaError(
            f"model.optimizer.formula must be one of {', '.join(FORMULAS)}, got {value!r}"
        )
    return value


def replaced(spec: dict[str, Any], api: str) -> bool:
    """True where this model API's built-in optimizer gets the 2017 formula instead."""
    return formula_of(spec) == "2017" and DIFFERS_IN.get(spec["name"]) == api


def same_math(spec: dict[str, Any], apis: list[str] | None = None) -> bool:
    """True where the backends (of these model APIs; default: Keras and torch) run one formula
    for this spec: the 2017 formula, an optimizer both built-ins agree on, or one API."""
    one_api = apis is not None and len(set(apis)) == 1
    return one_api or formula_of(spec) == "2017" or spec["name"] not in DIFFERS_IN


# AdamW (decoupled weight decay, Loshchilov & Hutter 2019) as torch.optim.AdamW and Keras 3's
# AdamW both compute it: w -= lr_t * weight_decay * w, then the Adam step. Their Adam parts
# differ as Adam's do (epsilon placement), so torch gets the 2017 epsilon (DIFFERS_IN).
# Which weights decay (`optimizer.weight_decay_on`): "matrices" decays kernels only, never
# biases, normalisation scales and offsets or embedding tables (the rule);
# "matrices_and_embeddings" adds the embedding tables (nanoGPT's configure_optimizers decays
# every parameter of two or more dimensions); "all" decays every weight (a parity mutation).
DECAY_ON = {
    "matrices": ("kernel",),
    "matrices_and_embeddings": ("kernel", "embeddings"),
    "all": None,
}


def decays(spec: dict[str, Any], weight_name: str) -> bool:
    """Whether the Keras weight named `weight_name` (the last path component: kernel, bias,
    gamma, beta, embeddings) takes weight decay. Names, not shapes: Keras' MultiHeadAttention
    keeps its biases as (heads, head_dim) arrays."""
    if not spec.get("weight_decay"):
        return False
    on = spec.get("weight_decay_on", "matrices")
    if on not in DECAY_ON:
        raise FormulaError(
            f"model.optimizer.weight_decay_on must be one of {', '.join(DECAY_ON)}, got {on!r}"
        )
    names = DECAY_ON[on]
    return names is None or weight_name in names


def learning_rate(spec: dict[str, Any], step: int) -> float:
    """The learning rate of optimizer step `step` (0 for the first), one formula everywhere.

    Without `warmup_steps` and `cosine_steps` (or with both 0) it is `lr` (Keras 2's `decay`
    is applied apart, as before). With them, nanoGPT's schedule: a linear warm-up
    lr * (step + 1) / warmup_steps over the first warmup_steps steps, then a half cosine from
    lr down to min_lr over cosine_steps steps, and min_lr after that.
    """
    lr, warmup = float(spec["lr"]), int(spec.get("warmup_steps", 0))
    cosine = int(spec.get("cosine_steps", 0))
    if step < warmup:
        return lr * (step + 1) / warmup
    if not cosine:
        return lr
    lowest = float(spec.get("min_lr", 0.0))
    done = min(1.0, (step - warmup) / cosine)
    return lowest + 0.5 * (1.0 + math.cos(math.pi * done)) * (lr - lowest)


def scheduled(spec: dict[str, Any]) -> bool:
    """True where `learning_rate` is not constant (a warm-up or a cosine decay is configured)."""
    return bool(spec.get("warmup_steps") or spec.get("cosine_steps"))
