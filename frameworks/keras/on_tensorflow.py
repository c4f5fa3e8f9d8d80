"""TensorFlow (Keras 3) adapter: thread control, build facts, and a tf.data input pipeline.

Keras trains with compile + fit, as its users do (frameworks/keras/common.py, shared with the
other Keras runtimes). The batch order comes from the shared permutations through a tf.data index
pipeline that gathers each batch, which is what Keras' own array adapter does when
fit(..., shuffle=True) is given numpy arrays.
"""

from __future__ import annotations

import os
import warnings
from typing import Any

os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")  # keep C++ info logs out of the progress
import keras
import tensorflow as tf

from benchdata import Dataset
from frameworks.base import History, ThreadMismatchError, ThreadReport, TrainPlan
from frameworks.keras import augment as keras_augment
from frameworks.keras.common import (
    KERAS_LOSS,
    ClockCallback,
    KerasBackend,
    check_requested,
    metric_prefix,
)
from frameworks.keras.feeding import scored, targets
from frameworks.keras.optimizers import make_optimizer
from frameworks.loop_print import LoopPrint
from frameworks.timing import RunClock

__all__ = ["KERAS_LOSS", "TensorFlowBackend", "make_optimizer"]  # benchmarks/bare_loop.py


def _epoch_indices(order, plan: TrainPlan) -> tf.data.Dataset:
    """One epoch's index batches, as fit reads them (and as the loop fingerprint hashes them).

    Where every batch the epoch takes is full (max_steps stops before a partial last batch, or
    the set divides evenly), `drop_remainder` drops nothing and tells Keras' traced step its
    batch size. With the batch dimension unknown, TensorFlow's gradient keeps shape bookkeeping
    in the graph, most of it inside a recurrent layer's loop: bilstm's step grew from 1,228 to
    1,404 graph nodes and cost 7-9% more per step than the same network fed full batches
    (docs/findings/2026-12-05-static-batch-shape.md). An epoch that ends on a partial batch, as
    the 2017 scripts' own, keeps it and the unknown dimension with it."""
    full_batches_only = plan.steps_per_epoch * plan.batch_size <= plan.orders.shape[-1]
    return (
        tf.data.Dataset.from_tensor_slices(order)
        .batch(plan.batch_size, drop_remainder=full_batches_only)
        .take(plan.steps_per_epoch)
    )


class _EpochSelector(keras.callbacks.Callback):
    """Names the epoch whose batches the next dataset iteration yields (TensorFlowBackend.train):
    Keras starts an epoch's iteration after on_epoch_begin."""

    def __init__(self, epoch: tf.Variable):
        super().__init__()
        self.epoch = epoch

    def on_epoch_begin(self, epoch, logs=None):
        self.epoch.assign(epoch)


class TensorFlowBackend(KerasBackend):
    name = "tensorflow"
    runtime = "tensorflow"

    def settings_report(self) -> dict[str, Any]:
        """Every setting as read back from TensorFlow and the compiled Keras model."""
        from tensorflow.python.util import _pywrap_util_port

        x, y = tf.constant([1e-30]), tf.constant([1e-9])
        report = {
            "onednn": bool(_pywrap_util_port.IsMklEnabled()),
            "xla": bool(self._model.jit_compile) if self._model is not None else None,
            "steps_per_execution": (
                int(self._model.steps_per_execution) if self._model is not None else None
            ),
            "flush_denormal": float((x * y).numpy()[0]) == 0.0,
        }
        check_requested(self.settings, report)
        return {**report, "precision": self.precision_report()}

    def configure_threads(self, intra_op: int, inter_op: int) -> ThreadReport:
        tf.config.threading.set_intra_op_parallelism_threads(intra_op)
        tf.config.threading.set_inter_op_parallelism_threads(inter_op)
        # Running one op initializes the runtime: from here on the pools are built and the
        # settings can no longer change, so what we read back is what the run will use.
        tf.constant(1.0).numpy()
        from threadpoolctl import threadpool_info

        report = ThreadReport(
            tf.config.threading.get_intra_op_parallelism_threads(),
            tf.config.threading.get_inter_op_parallelism_threads(),
            [
                {k: p.get(k) for k in ("user_api", "internal_api", "prefix", "num_threads")}
                for p in threadpool_info()
            ],
        )
        if (report.intra_op, report.inter_op) != (intra_op, inter_op):
            raise ThreadMismatchError(
                f"tensorflow runs intra-op {report.intra_op}, inter-op {report.inter_op}; "
                f"requested {intra_op}, {inter_op}"
            )
        return report

    def describe(self) -> dict[str, Any]:
        from tensorflow.python.util import _pywrap_util_port

        build = dict(tf.sysconfig.get_build_info())
        return {
            "framework": "tensorflow",
            "version": tf.__version__,
            "keras_version": keras.__version__,
            "build": {
                "cuda": build.get("cuda_version"),
                "is_cuda_build": build.get("is_cuda_build"),
                "mkl (oneDNN) build": _pywrap_util_port.IsMklEnabled(),
                # TF >= 2.9 turns oneDNN ops on by default on x86 Linux unless this is "0".
                "TF_ENABLE_ONEDNN_OPTS": os.environ.get("TF_ENABLE_ONEDNN_OPTS", "default (on)"),
            },
        }

    def check_device(self, device: str) -> None:
        if device == "cuda" and not tf.config.list_physical_devices("GPU"):
            raise RuntimeError(
                "device=cuda but tensorflow sees no GPU (tensorflow-cpu installed; "
                "see docs/getting-started.md, 'GPU installation')"
            )

    def train(
        self,
        model: keras.Model,
        model_cfg: dict[str, Any],
        data: Dataset,
        plan: TrainPlan,
        clock: RunClock,
        progress=None,
    ) -> History:
        self.compile(model, model_cfg)
        # With steps_per_execution N, Keras runs N steps per graph call and calls the batch
        # hooks once per call: each clock tick then spans N steps.
        clock.steps_per_tick = int(model.steps_per_execution)
        history = History()
        augment = keras_augment.make_augment(model_cfg.get("augment"), plan.seed)
        callbacks = [
            ClockCallback(clock, history, progress, metric_prefix(model_cfg), plan.validate)
        ]
        steps_per_epoch = plan.steps_per_epoch
        if plan.steps_per_epoch % clock.steps_per_tick:
            # Keras takes steps_per_execution batches per call whatever the epoch has left, so
            # with one stream of all epochs' batches an epoch would borrow the next one's. Each
            # epoch then iterates a dataset of exactly its own batches, and Keras' multi-step
            # loop stops at its end (a shorter last call), as epochs with steps_per_execution=1.
            # Keras warns that such a dataset "ran out of data": here that is each epoch's end.
            warnings.filterwarnings("ignore", message="Your input ran out of data")
            epoch = tf.Variable(0, dtype=tf.int64, trainable=False)
            callbacks.insert(0, _EpochSelector(epoch))
            batches, steps_per_epoch = self._batches(data, plan, augment, epoch), None
        else:
            batches = self._batches(data, plan, augment)
        if model_cfg.get("loss_weights"):  # a dict of per-head labels; no data is copied
            batches = batches.map(lambda x, y: (x, targets(model_cfg, y)))
        validation = self.validation(model_cfg, data, plan)
        history.loop = self._fed(data, plan)
        model.fit(
            batches,
            epochs=plan.epochs,
            steps_per_epoch=steps_per_epoch,
            **validation,
            callbacks=callbacks,
            verbose=0,
        )
        return history

    @staticmethod
    def validation(model_cfg: dict[str, Any], data: Dataset, plan: TrainPlan) -> dict[str, Any]:
        """fit's validation input: the batches Keras' array adapter would cut from the numpy
        arrays (validation_steps batches of batch_size from the front of x_test, in order, the
        last one partial), as a tf.data pipeline with autotuning off.

        Keras makes a new iterator for every validation pass, and deleting an autotuned one waits
        for tf.data's autotuner thread to wake from its sleep: seconds, at random, inside the
        epoch (docs/findings/2026-12-01-speed-table-in-turns.md, "TensorFlow's pauses"; seen
        again on 2026-12-02). Slicing consecutive rows needs no tuning, so nothing is lost."""
        if not plan.validate:
            return {}
        bs = plan.batch_size
        n = min(len(data.x_test), plan.eval_steps * bs)
        x = tf.constant(data.x_test[:n])
        y = tf.nest.map_structure(tf.constant, targets(model_cfg, data.y_test[:n]))

        def batch(i):
            rows = slice(i * bs, tf.minimum((i + 1) * bs, n))
            return x[rows], tf.nest.map_structure(lambda t: t[rows], y)

        options = tf.data.Options()
        options.autotune.enabled = False
        batches = tf.data.Dataset.range(plan.eval_steps).map(batch).with_options(options)
        return {
            "validation_data": batches,
            "validation_steps": plan.eval_steps,
            "validation_freq": plan.validation_epochs(),  # the epochs torch validates on
        }

    @staticmethod
    def _fed(data: Dataset, plan: TrainPlan) -> list[dict[str, Any]]:
        """The loop fingerprint (frameworks/loop_print.py), read from the index pipeline fit
        gathers by (_epoch_indices, the same function), before training: a tap inside the
        graph pipeline would cost every step a Python call."""
        fed = LoopPrint()
        for epoch in range(plan.epochs):
            for i, idx in enumerate(_epoch_indices(plan.orders[epoch], plan).as_numpy_iterator()):
                first = (data.x_train[idx], data.y_train[idx]) if i == 0 else None
                fed.batch(epoch, i, idx, first)
        return scored(fed, data, plan)

    @staticmethod
    def _batches(
        data: Dataset, plan: TrainPlan, augment=None, epoch: tf.Variable | None = None
    ) -> tf.data.Dataset:
        """Every epoch's batches in one stream; or, given `epoch`, the batches of the epoch that
        variable names when an iteration starts (one iteration per epoch)."""
        x, y = tf.constant(data.x_train), tf.constant(data.y_train)
        orders = tf.constant(plan.orders)

        def epoch_of(order):
            return _epoch_indices(order, plan)

        if epoch is None:
            indices = tf.data.Dataset.from_tensor_slices(orders).flat_map(epoch_of)
        else:
            indices = tf.data.Dataset.range(1).flat_map(
                lambda _: epoch_of(tf.gather(orders, epoch))
            )
        batches = indices.map(
            lambda idx: (tf.gather(x, idx), tf.gather(y, idx)),
            num_parallel_calls=tf.data.AUTOTUNE,
            deterministic=True,
        )
        if augment is not None:  # training batches only (frameworks/keras/augment.py)
            # A sequential map: the layers' random state then advances in batch order, so a
            # seed gives the same augmented batches every run. Prefetch still overlaps it.
            batches = batches.map(lambda xb, yb: (augment(xb, training=True), yb))
        return batches.prefetch(tf.data.AUTOTUNE)

    def matmul_gflops(self, size: int, seconds: float, device: str) -> float:
        """Best float32 GFLOP/s of square matmuls with this run's threads: the machine's peak."""
        import time

        with tf.device("/GPU:0" if device == "cuda" else "/CPU:0"):
            a, b = (tf.random.normal((size, size)) for _ in range(2))
            tf.linalg.matmul(a, b).numpy()  # warm-up: pools, kernel selection
            best, deadline = 0.0, time.perf_counter() + seconds
            while time.perf_counter() < deadline:
                t0 = time.perf_counter_ns()
                # Eager ops on the CPU return when done; reading one element also waits on a GPU.
                tf.linalg.matmul(a, b)[0, 0].numpy()
                best = max(best, 2 * size**3 / max(time.perf_counter_ns() - t0, 1))
        return best
