"""What a ported script gets from outside: CPU budget, arrays, an epoch clock, a result line.

    python -m benchmarks.ports.<script> --cpus N [--max-steps S] [--epochs E]

The CPU budget is applied before the script imports a framework (affinity, then the thread
variables), exactly as twinbench's worker applies it, so a difference in speed is the code's.
The arrays are twinbench's own (`benchdata`, synthetic, seed 0), cut to `max_steps` batches for
training and for validation, which is what twinbench's `max_steps` does. The script prints one
JSON line last: {"epoch_s": [...], "validates": bool}.
"""

from __future__ import annotations

import argparse
import json
import os
import time
from dataclasses import dataclass
from typing import Any

from twinbench.machine import cpu


@dataclass
class Budget:
    cpus: int
    max_steps: int | None
    epochs: int | None
    interop_threads: int | None = None  # None: cpus (TensorFlow's inter-op pool)


def budget(description: str) -> Budget:
    """Parse the command line and pin this process to the budget, before any framework loads."""
    p = argparse.ArgumentParser(description=description)
    p.add_argument("--cpus", type=int, default=len(cpu.allowed_cpus()))
    p.add_argument("--max-steps", type=int, default=None)
    p.add_argument("--epochs", type=int, default=None, help="default: the published script's")
    p.add_argument("--interop-threads", type=int, default=None, help="default: --cpus")
    args = p.parse_args()
    interop = args.interop_threads or args.cpus
    cpu.pin(cpu.choose_cores(args.cpus))
    os.environ.update(cpu.thread_environment(args.cpus, interop))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    return Budget(args.cpus, args.max_steps, args.epochs, interop)


def arrays(model: str, b: Budget) -> tuple[Any, dict[str, Any]]:
    """twinbench's arrays for `model` (cut to max_steps batches) and its config (sizes filled)."""
    from benchdata import fill_arch, load
    from models.catalog import model_config

    cfg = model_config(model)
    data = load(cfg["dataset"], "synthetic", 0, cfg.get("view"))
    cfg = fill_arch(cfg, data)
    if b.max_steps is not None:
        n = b.max_steps * cfg["batch_size"]
        data.x_train, data.y_train = data.x_train[:n], data.y_train[:n]
        data.x_test, data.y_test = data.x_test[:n], data.y_test[:n]
    return data, cfg


def keras_threads(b: Budget) -> None:
    import tensorflow as tf

    tf.config.threading.set_intra_op_parallelism_threads(b.cpus)
    tf.config.threading.set_inter_op_parallelism_threads(b.interop_threads or b.cpus)


def epoch_logger():
    """The 2017 EpochStatsLogger (CustomCallback.py), keeping times in memory instead of a CSV.

    time.time() became perf_counter (a monotonic clock); the loss columns are left out.
    """
    import keras

    class EpochStatsLogger(keras.callbacks.Callback):
        times: list[float]

        def on_train_begin(self, logs=None):
            self.times = []

        def on_epoch_begin(self, epoch, logs=None):
            self.start_time = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            self.times.append(time.perf_counter() - self.start_time)

    return EpochStatsLogger()


def report(epoch_s: list[float], validates: bool) -> None:
    print(json.dumps({"epoch_s": epoch_s, "validates": validates}), flush=True)
