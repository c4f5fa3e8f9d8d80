"""What a ported script gets from outside: CPU budget, arrays, an epoch clock, a result line.

    python -m benchmarks.ports.<script> --cpus N [--max-steps S] [--epochs E]

The CPU budget is applied before the script imports a framework (affinity, then the thread
variables), exactly as twinbench's worker applies it, so a difference in speed is the code's.
The arrays are twinbench's own (`benchdata`, synthetic, seed 0), cut to `max_steps` batches for
training and for validation, which is what twinbench's `max_steps` does. The script prints one
JSON line last: {"epoch_s": [...], "validates": bool}.

In a pair that takes turns with twinbench (benchmarks/turn_pairs.py) the script's epoch clock is
`TurnClock`: it hands the turn over every few training steps exactly as twinbench's own RunClock
does (frameworks/turns.py, same protocol, same pipes), and its epoch times leave the waits out.
Outside a pair it is the plain perf_counter clock and nothing else changes.
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
    from benchdata import cache, fill_arch, load
    from models.catalog import model_config

    cfg = model_config(model)
    # the data sets twinbench's runs keep between processes (benchdata/cache.py), untimed
    data = load(
        cfg["dataset"], "synthetic", 0, cfg.get("view"), synthetic_cache=cache.default_dir()
    )
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


class TurnClock:
    """perf_counter, less the time spent waiting for a partner's turns (none without one).

    It also sums the process' CPU time over the epochs it times (waits left out), which
    `report` prints: a pair in turns compares the CPU each side spent training, as twinbench's
    record does (resources.cpu_time_training_s)."""

    last: TurnClock | None = None  # the script's clock, for report()

    def __init__(self) -> None:
        from frameworks import turns

        self.turns = turns.from_environment()
        self.train_cpu_ns = 0
        TurnClock.last = self

    def now(self) -> float:
        return (time.perf_counter_ns() - (self.turns.paused_ns if self.turns else 0)) / 1e9

    def _cpu_ns(self) -> int:
        return time.process_time_ns() - (self.turns.paused_cpu_ns if self.turns else 0)

    def begin(self) -> None:
        """Before the first training step: wait for the first turn."""
        if self.turns:
            self.turns.begin()

    def epoch_begin(self) -> None:
        self._epoch_start, self._epoch_cpu = self.now(), self._cpu_ns()

    def epoch_end(self) -> float:
        """The epoch's seconds (its CPU time is added to the training's)."""
        self.train_cpu_ns += self._cpu_ns() - self._epoch_cpu
        return self.now() - self._epoch_start

    def tick(self) -> None:
        """After each training step: hand the turn over at the end of a block."""
        if self.turns:
            self.turns.tick()

    def end(self) -> None:
        """After the last training step: wait until the partner has trained its last too."""
        if self.turns:
            self.turns.end()


def epoch_logger():
    """The 2017 EpochStatsLogger (CustomCallback.py), keeping times in memory instead of a CSV.

    time.time() became perf_counter (a monotonic clock); the loss columns are left out. Taking
    turns, it also hands them over after training batches (a batch hook only then: alone, the
    script's callbacks are the 2017 ones).
    """
    import keras

    clock = TurnClock()

    class EpochStatsLogger(keras.callbacks.Callback):
        times: list[float]

        def on_train_begin(self, logs=None):
            self.times = []
            clock.begin()

        def on_epoch_begin(self, epoch, logs=None):
            clock.epoch_begin()

        def on_epoch_end(self, epoch, logs=None):
            self.times.append(clock.epoch_end())

        def on_train_end(self, logs=None):
            clock.end()

    class TurnTakingStatsLogger(EpochStatsLogger):
        def on_train_batch_end(self, batch, logs=None):
            clock.tick()

    return TurnTakingStatsLogger() if clock.turns else EpochStatsLogger()


def report(epoch_s: list[float], validates: bool) -> None:
    """The script's last line. With its clock: the CPU seconds of its epochs, and its turns."""
    line: dict[str, Any] = {"epoch_s": epoch_s, "validates": validates}
    clock = TurnClock.last
    if clock is not None:
        line["train_cpu_s"] = clock.train_cpu_ns / 1e9
        line["turns"] = clock.turns.summary() if clock.turns else None
    print(json.dumps(line), flush=True)
