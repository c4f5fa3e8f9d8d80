"""Keras optimizers that run the formula named in `optimizer.formula` (frameworks/
optimizer_formula.py), fed sparse gradients with duplicate rows summed.

Keras 3's Adam and Adadelta already compute the 2017 formula. Its RMSprop puts epsilon inside
the square root (lr * g / sqrt(v + eps)); Keras 2.0 and torch add it to the root
(lr * g / (sqrt(v) + eps)). Late in training v is tiny and the difference is large: with eps
1e-8, sqrt(v + eps) never falls below 1e-4, as if eps were ~1e-4 in the 2017 formula.
`RMSprop2017` replaces only `update_step`, which Keras traces into the same compiled train step
as the built-in's (benchmarks/optimizer_step.py compares their speed).
"""

from __future__ import annotations

import math
from typing import Any

import keras
from keras import ops

from frameworks import optimizer_formula


def _sum_duplicate_rows(grad):
    """A sparse gradient with each row once, its duplicates summed; anything else unchanged.

    Only Keras on TensorFlow hands optimizers sparse gradients (tf.IndexedSlices); on torch and
    JAX an Embedding's gradient is a dense tensor, every row's lookups already summed.
    """
    if keras.backend.backend() != "tensorflow":
        return grad
    import tensorflow as tf

    if not isinstance(grad, tf.IndexedSlices):
        return grad
    rows, position = tf.unique(grad.indices)
    values = tf.math.unsorted_segment_sum(grad.values, position, tf.shape(rows)[0])
    return tf.IndexedSlices(values, rows, grad.dense_shape)


class _SummedRows:
    """Keras' optimizer, handed sparse gradients whose rows are summed per embedding row.

    An Embedding's gradient is an IndexedSlices with one slice per lookup. Keras 3 squares it
    slice by slice (ops.square keeps IndexedSlices), so a row looked up k times in a batch adds
    sum_i g_i^2 to RMSprop's, Adadelta's or Adam's second moment instead of (sum_i g_i)^2: not
    the algorithm, nor what Keras 2 (whose ops made such gradients dense), tf.keras (which
    deduplicated them) or torch compute. One Adam step moves a row looked up 3 times by
    sqrt(3) * lr instead of lr. Summing duplicate rows first restores the algorithm for one
    tf.unique over the batch's ids; dense gradients are untouched.
    """

    def apply(self, grads, trainable_variables=None):
        return super().apply([_sum_duplicate_rows(g) for g in grads], trainable_variables)


class RMSprop(_SummedRows, keras.optimizers.RMSprop):
    """Keras 3's RMSprop as shipped (epsilon inside the root)."""


class RMSprop2017(_SummedRows, keras.optimizers.RMSprop):
    """RMSprop as Keras 2.0 and torch compute it: w -= lr * g / (sqrt(v) + eps), with
    v = rho * v + (1 - rho) * g^2. Plain RMSprop only (no momentum, not centered), as the
    2017 scripts used it."""

    def __init__(self, **kwargs):
        super().__init__(momentum=0.0, centered=False, **kwargs)

    def update_step(self, gradient, variable, learning_rate):
        lr = ops.cast(learning_rate, variable.dtype)
        gradient = ops.cast(gradient, variable.dtype)
        velocity = self._velocities[self._get_variable_index(variable)]
        rho = self.rho
        self.assign(
            velocity,
            ops.add(ops.multiply(rho, velocity), ops.multiply(1 - rho, ops.square(gradient))),
        )
        self.assign_sub(
            variable,
            ops.divide(ops.multiply(lr, gradient), ops.add(ops.sqrt(velocity), self.epsilon)),
        )


class Adadelta(_SummedRows, keras.optimizers.Adadelta):
    """Keras 3's Adadelta: the same formula as Keras 2.0's and torch's."""


class Adam(_SummedRows, keras.optimizers.Adam):
    """Keras 3's Adam: Keras 2.0's formula (eps added to sqrt(v) before bias correction)."""


class AdamW(_SummedRows, keras.optimizers.AdamW):
    """Keras 3's AdamW (Adam's 2017 formula, decoupled decay w -= lr_t * weight_decay * w),
    decaying only the weights `optimizer_formula.decays` names (kernels and embedding tables)."""

    def __init__(self, spec: dict[str, Any], **kwargs):
        super().__init__(**kwargs)
        self._decay_spec = dict(spec)

    def _use_weight_decay(self, variable) -> bool:
        return optimizer_formula.decays(self._decay_spec, variable.name)


class WarmupCosine(keras.optimizers.schedules.LearningRateSchedule):
    """`optimizer_formula.learning_rate` in keras.ops, traced into the train step: a linear
    warm-up, then a half cosine down to min_lr. Keras counts iterations from 0 at the first
    step, as the formula does."""

    def __init__(self, spec: dict[str, Any]):
        self.spec = {k: spec.get(k, 0) for k in ("lr", "warmup_steps", "cosine_steps", "min_lr")}

    def __call__(self, step):
        lr, lowest = float(self.spec["lr"]), float(self.spec["min_lr"])
        warmup, cosine = int(self.spec["warmup_steps"]), int(self.spec["cosine_steps"])
        t = ops.cast(step, "float32")
        warm = lr * (t + 1.0) / max(warmup, 1)
        if not cosine:
            return ops.where(t < warmup, warm, lr)
        done = ops.minimum(1.0, (t - warmup) / cosine)
        decayed = lowest + 0.5 * (1.0 + ops.cos(math.pi * done)) * (lr - lowest)
        return ops.where(t < warmup, warm, decayed)

    def get_config(self) -> dict[str, Any]:
        return dict(self.spec)


def make_optimizer(spec: dict[str, Any]) -> keras.optimizers.Optimizer:
    """The optimizer for an `optimizer:` spec of conf/model, every hyperparameter explicit
    (Keras 3 changed defaults), running the formula the spec names."""
    formula = optimizer_formula.formula_of(spec)
    decay = spec.get("decay", 0.0)
    # Keras 2's decay: lr / (1 + decay * iterations), iterations counted from 0 at the first step.
    lr = (
        keras.optimizers.schedules.InverseTimeDecay(spec["lr"], decay_steps=1, decay_rate=decay)
        if decay
        else spec["lr"]
    )
    name = spec["name"]
    if name == "rmsprop":
        if formula == "2017":
            return RMSprop2017(learning_rate=lr, rho=spec["rho"], epsilon=spec["eps"], name=name)
        return RMSprop(
            learning_rate=lr,
            rho=spec["rho"],
            epsilon=spec["eps"],
            momentum=0.0,
            centered=False,
            name=name,
        )
    if name == "adadelta":
        return Adadelta(learning_rate=lr, rho=spec["rho"], epsilon=spec["eps"], name=name)
    if name == "adam":
        return Adam(
            learning_rate=lr,
            beta_1=spec["beta_1"],
            beta_2=spec["beta_2"],
            epsilon=spec["eps"],
            amsgrad=False,
            name=name,
        )
    if name == "adamw":
        return AdamW(
            spec,
            learning_rate=WarmupCosine(spec) if optimizer_formula.scheduled(spec) else lr,
            weight_decay=float(spec["weight_decay"]),
            beta_1=spec["beta_1"],
            beta_2=spec["beta_2"],
            epsilon=spec["eps"],
            amsgrad=False,
            # clip_by_global_norm over every gradient, as torch's clip_grad_norm_; 0 = off
            global_clipnorm=spec.get("clip_global_norm") or None,
            name=name,
        )
    raise ValueError(f"optimizer '{name}' is not mapped for keras")
