"""What every Keras 3 runtime shares: the same `keras_model` builders (models/<name>.py), compile
and `model.fit`, the same optimizers (frameworks/keras/optimizers.py), canonical weights in
Keras' own layout, and the learning rate read back from the optimizer.

A runtime adapter (frameworks/keras/on_tensorflow.py, on_torch.py, on_jax.py)
adds only what differs between runtimes: thread control, build facts, settings, the matmul probe
and, for TensorFlow, its tf.data input pipeline. Keras picks its runtime once, at import, from
KERAS_BACKEND: the registry entry sets it before the adapter module loads, and the adapter
refuses to run on another one.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # keep C++ info logs out of the progress
import keras

import models
from benchdata import Dataset
from frameworks import settings as settings_module
from frameworks.base import Backend, History, TrainPlan, TrainStep
from frameworks.keras import stochastic as keras_stochastic
from frameworks.keras.augment import make_augment
from frameworks.keras.feeding import EpochSelector, SharedOrderBatches, scored, targets
from frameworks.keras.optimizers import make_optimizer
from frameworks.precision_check import precision_block
from frameworks.timing import RunClock

KERAS_LOSS = {"softmax": "sparse_categorical_crossentropy", "sigmoid": "binary_crossentropy"}


def metric_prefix(model_cfg: dict[str, Any]) -> str:
    """Keras logs a multi-output model's metrics per head: 'main_accuracy'."""
    if not model_cfg.get("loss_weights"):
        return ""
    return models.get(model_cfg["name"]).PRIMARY_OUTPUT + "_"


class ClockCallback(keras.callbacks.Callback):
    """Forwards Keras' epoch/batch events to the run clock; each hook is one clock read."""

    def __init__(
        self,
        clock: RunClock,
        history: History,
        progress,
        metric_prefix: str = "",
        validating: bool = True,
    ):
        super().__init__()
        self.clock, self.history, self.progress = clock, history, progress
        self.acc = metric_prefix + "accuracy"
        self.validating = validating  # the plan validates on some epochs

    def on_epoch_begin(self, epoch, logs=None):
        self.clock.epoch_begin()

    def on_train_batch_end(self, batch, logs=None):
        self.clock.step_end()

    def on_test_begin(self, logs=None):
        self.clock.validation_begin()

    def on_epoch_end(self, epoch, logs=None):
        self.clock.epoch_end()
        h = self.history
        h.loss.append(float(logs["loss"]))
        h.accuracy.append(float(logs[self.acc]))
        if "val_loss" in logs:  # absent when the model trains without validation
            h.val_loss.append(float(logs["val_loss"]))
            h.val_accuracy.append(float(logs["val_" + self.acc]))
        elif self.validating:  # an epoch between validations (validation_freq): no value
            h.val_loss.append(None)
            h.val_accuracy.append(None)
        if self.progress is not None:
            self.progress(epoch, h)


class KerasBackend(Backend):
    """Keras 3 on the runtime named by `runtime` (keras.backend.backend())."""

    runtime: str
    settings: dict[str, Any] = {}  # noqa: RUF012 -- replaced per run by apply_settings
    _model = None

    def __init__(self) -> None:
        if keras.backend.backend() != self.runtime:
            raise RuntimeError(
                f"backend {self.name} needs Keras on {self.runtime}, but Keras loaded "
                f"{keras.backend.backend()} (KERAS_BACKEND={os.environ.get('KERAS_BACKEND')}); "
                "set it before keras is imported"
            )

    # ---------------------------------------------------------------- settings

    def apply_settings(self, requested: dict[str, Any]) -> None:
        """jit_compile/xla and steps_per_execution take effect in compile()."""
        self.settings = dict(requested)

    def set_precision(self, precision: str) -> None:
        """Keras' global dtype policy, before the model is built: `mixed_bfloat16` computes in
        bfloat16 and keeps variables, the loss (Keras casts predictions to the loss' float32)
        and the optimizer state in float32."""
        super().set_precision(precision)
        keras.config.set_dtype_policy("mixed_bfloat16" if precision == "bfloat16" else "float32")

    def precision_report(self) -> dict[str, Any] | None:
        """The dtypes the built model computes in and stores its trainable weights in."""
        m = self._model
        if m is None:
            return None
        layers = [layer for layer in m._flatten_layers() if layer.trainable_weights]
        return precision_block(
            self.precision,
            {str(layer.compute_dtype) for layer in layers},
            {str(v.dtype) for v in m.trainable_weights},
        )

    def engine(self) -> dict[str, Any]:
        """compile()'s engine arguments from the settings; null = Keras' own default."""
        jit = self.settings.get("jit_compile", self.settings.get("xla"))
        return {
            # Keras' default "auto" is off on CPU for TensorFlow and torch, on for JAX.
            "jit_compile": "auto" if jit is None else jit,
            "steps_per_execution": self.settings.get("steps_per_execution") or 1,
        }

    def compiled_settings(self) -> dict[str, Any]:
        """What the compiled model runs with, read back from it."""
        m = self._model
        return {
            "jit_compile": bool(m.jit_compile) if m is not None else None,
            "steps_per_execution": int(m.steps_per_execution) if m is not None else None,
        }

    def settings_report(self) -> dict[str, Any]:
        report = self.compiled_settings()
        check_requested(self.settings, report)
        return {**report, "precision": self.precision_report()}

    def describe(self) -> dict[str, Any]:
        return {
            "framework": self.name,
            "version": keras.__version__,
            "keras_version": keras.__version__,
            "keras_backend": keras.backend.backend(),
        }

    def seed(self, seed: int) -> None:
        keras.utils.set_random_seed(seed)

    def fresh_session(self) -> None:
        # Layer names are uniquified per session ("dense_3"): weights are exchanged by name
        keras.backend.clear_session()

    # ---------------------------------------------------------------- the model

    def build(self, model_name: str, model_cfg: dict[str, Any], device: str) -> keras.Model:
        builder = models.get(model_name).keras_model
        if device == "cpu":  # the runtimes' default device; an explicit "cpu:0" scope makes
            # Keras-on-torch move its integer seed variables off their torch Parameter (2.13)
            return builder(**model_cfg["arch"])
        with keras.device("gpu:0"):
            return builder(**model_cfg["arch"])

    def count_params(self, model: keras.Model) -> int:
        return int(model.count_params())

    def export_weights(self, model: keras.Model, model_name: str) -> dict[str, np.ndarray]:
        """Canonical weights: '<layer>/<weight>' in Keras' own layout."""
        prefix = model.name + "/"
        return {
            v.path.removeprefix(prefix): np.array(keras.ops.convert_to_numpy(v.value))
            for v in model.weights
        }

    def import_weights(
        self, model: keras.Model, model_name: str, weights: dict[str, np.ndarray]
    ) -> None:
        prefix = model.name + "/"
        for v in model.weights:
            v.assign(weights[v.path.removeprefix(prefix)])

    def predict_batch(self, model: keras.Model, model_name: str, x: np.ndarray) -> np.ndarray:
        # Keras' own call for one batch: its predict function, traced and jitted once where the
        # runtime compiles (TensorFlow, JAX), not an eager call per character
        out = model.predict_on_batch(x)
        if isinstance(out, dict):  # several heads: the primary one is the prediction
            out = out[models.get(model_name).PRIMARY_OUTPUT]
        return np.asarray(out)

    def predict(self, model: keras.Model, model_name: str, x: np.ndarray) -> np.ndarray:
        out = model(x, training=False)
        if isinstance(out, dict):  # several heads: the primary one is the prediction
            out = out[models.get(model_name).PRIMARY_OUTPUT]
        return np.asarray(keras.ops.convert_to_numpy(out))

    def attention_dropout_probe(
        self, model: keras.Model, model_name: str, tokens: int, draws: int, seed: int
    ) -> list[tuple[str, float, dict[str, float]]]:
        # torch's module stores its mask; a Keras model passes use_causal_mask per call
        causal = getattr(models.get(model_name), "CAUSAL_ATTENTION", False)
        return keras_stochastic.attention_dropout_probe(model, causal, tokens, draws, seed)

    def attention_alone(
        self,
        model: keras.Model,
        model_name: str,
        layers: list[str],
        make_input: Callable[[int], np.ndarray],
    ) -> dict[str, np.ndarray]:
        causal = getattr(models.get(model_name), "CAUSAL_ATTENTION", False)
        found = {}
        for name in layers:
            layer = model.get_layer(name)  # its call picks the fused or explicit route itself
            width = int(layer._query_dense.kernel.shape[0])
            x = keras.ops.convert_to_tensor(make_input(width))
            out = layer(x, x, use_causal_mask=causal, training=False)
            found[name] = np.asarray(keras.ops.convert_to_numpy(out))
        return found

    def activations(
        self, model: keras.Model, model_name: str, x: np.ndarray, layers: list[str]
    ) -> dict[str, np.ndarray]:
        # A functional model's layers keep their symbolic outputs: one sub-model reads them all
        # in one inference-mode call of the same layers (the same weights, not copies).
        inputs = model.inputs[0] if len(model.inputs) == 1 else model.inputs  # as it was built
        probe = keras.Model(inputs, [model.get_layer(name).output for name in layers])
        outs = probe(x, training=False)
        return {
            n: np.asarray(keras.ops.convert_to_numpy(o)) for n, o in zip(layers, outs, strict=True)
        }

    # ---------------------------------------------------------------- training

    def dropout_probe(self, model: keras.Model, units: int) -> list[tuple[str, float, np.ndarray]]:
        ones = np.ones((1, units), "float32")
        found = []
        # Nested layers too (a Bidirectional's, an attention block's), in tracking order.
        for layer in model._flatten_layers(include_self=False, recursive=True):
            if isinstance(layer, keras.layers.Dropout):
                out = keras.ops.convert_to_numpy(layer(ones, training=True))
                found.append((layer.name, float(layer.rate), np.asarray(out).reshape(-1)))
        return found

    def dropout_in_forward(self, model: keras.Model, x: np.ndarray) -> dict[str, dict[str, float]]:
        return keras_stochastic.dropout_in_forward(model, x)

    def augment_probe(
        self, model_cfg: dict[str, Any], x: np.ndarray, seed: int
    ) -> np.ndarray | None:
        # The very builder every Keras runtime's training loop maps over its training batches.
        augment = make_augment(model_cfg.get("augment"), seed)
        if augment is None:
            return None
        return np.asarray(keras.ops.convert_to_numpy(augment(x, training=True)))

    def validation_probe(self, model_cfg: dict[str, Any], x: np.ndarray) -> np.ndarray:
        """`x` as fit's validation pass sees it in a run (frameworks/keras/stochastic.py)."""
        return keras_stochastic.validation_probe(self.validation, model_cfg, x)

    def compile(self, model: keras.Model, model_cfg: dict[str, Any]) -> None:
        self._model = model
        module = models.get(model_cfg["name"])
        loss = KERAS_LOSS[module.OUTPUT]
        heads = model_cfg.get("loss_weights")
        if heads:  # one loss per head, weighted; accuracy of the primary head only
            model.compile(
                optimizer=make_optimizer(model_cfg["optimizer"]),
                loss={head: loss for head in heads},
                loss_weights=dict(heads),
                metrics={module.PRIMARY_OUTPUT: ["accuracy"]},
                **self.engine(),
            )
            return
        model.compile(
            optimizer=make_optimizer(model_cfg["optimizer"]),
            loss=loss,
            metrics=["accuracy"],
            **self.engine(),
        )

    def make_step(self, model: keras.Model, model_cfg: dict[str, Any]) -> TrainStep:
        """One training step through Keras' compiled train_step (what fit runs per batch)."""
        self.compile(model, model_cfg)

        def step(x: np.ndarray, y: np.ndarray) -> float:
            # The batch's own loss: Keras 3.12 returns the mean over every train_on_batch call
            # since the last reset (3.15 the batch's alone), which failed parity on that release
            # with weights equal to 3e-5 (docs/usage/stacks.md).
            model.reset_metrics()
            logs = model.train_on_batch(x, targets(model_cfg, y), return_dict=True)
            return float(logs["loss"])

        return step

    def learning_rates(self, steps: list[int]) -> list[float]:
        optimizer = self._model.optimizer
        saved = int(keras.ops.convert_to_numpy(optimizer.iterations.value))
        rates = []
        for t in steps:
            optimizer.iterations.assign(t)
            rate = optimizer._get_current_learning_rate()
            rates.append(float(keras.ops.convert_to_numpy(rate)))
        optimizer.iterations.assign(saved)
        return rates

    def train(
        self,
        model: keras.Model,
        model_cfg: dict[str, Any],
        data: Dataset,
        plan: TrainPlan,
        clock: RunClock,
        progress=None,
    ) -> History:
        """model.fit over the shared batch order (SharedOrderBatches)."""
        self.compile(model, model_cfg)
        clock.steps_per_tick = int(model.steps_per_execution)
        history = History()
        batches = SharedOrderBatches(
            data, plan, model_cfg, make_augment(model_cfg.get("augment"), plan.seed)
        )
        callbacks = [
            EpochSelector(batches),
            ClockCallback(clock, history, progress, metric_prefix(model_cfg), plan.validate),
        ]
        model.fit(
            batches,
            epochs=plan.epochs,
            shuffle=False,  # fit shuffles a PyDataset's batches by default; the order is shared
            **self.validation(model_cfg, data, plan),
            callbacks=callbacks,
            verbose=0,
        )
        history.loop = scored(batches.fed, data, plan)
        return history

    @staticmethod
    def validation(model_cfg: dict[str, Any], data: Dataset, plan: TrainPlan) -> dict[str, Any]:
        if not plan.validate:
            return {}
        return {
            "validation_data": (data.x_test, targets(model_cfg, data.y_test)),
            "validation_batch_size": plan.batch_size,
            "validation_steps": plan.eval_steps,
            "validation_freq": plan.validation_epochs(),  # the epochs torch validates on
        }

    def matmul_gflops(self, size: int, seconds: float, device: str) -> float:
        """Best float32 GFLOP/s of square matmuls through keras.ops on this runtime."""
        import time

        ops = keras.ops
        a, b = (keras.random.normal((size, size), seed=i) for i in range(2))
        ops.convert_to_numpy(ops.matmul(a, b)[0, 0])  # warm-up: pools, kernel selection
        best, deadline = 0.0, time.perf_counter() + seconds
        while time.perf_counter() < deadline:
            t0 = time.perf_counter_ns()
            # Reading one element waits for an asynchronous runtime (JAX) to finish.
            ops.convert_to_numpy(ops.matmul(a, b)[0, 0])
            best = max(best, 2 * size**3 / max(time.perf_counter_ns() - t0, 1))
        return best


def check_requested(requested: dict[str, Any], report: dict[str, Any]) -> None:
    """A setting requested (not null) and read back otherwise fails the run."""
    for key, value in requested.items():
        if value is not None and key in report and report[key] != value:
            raise settings_module.SettingError(
                f"backend.{key}={value} requested, {report[key]} in effect"
            )
