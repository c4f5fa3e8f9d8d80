"""Timing several training steps against each other in one process: alternating blocks.

Each variant's step runs `steps` times in a block, the variants' blocks alternating for `rounds`
rounds, so that whatever load the machine carries falls on every variant alike. Used by the
in-process comparisons (benchmarks.attention, benchmarks.optimizer_step).
"""

from __future__ import annotations

import os
import statistics
import time
from collections.abc import Callable
from typing import Any

from twinbench.machine import cpu


def one_batch(
    backend_name: str, model_name: str, cpus: int
) -> tuple[Any, dict[str, Any], Any, Any]:
    """This process pinned to `cpus` cores with its thread budget set before the framework loads,
    then (the backend, the model's config with the data's sizes filled in, one batch x, y) of the
    model's synthetic data: what every in-process step comparison starts from."""
    cpu.pin(cpu.choose_cores(cpus))
    os.environ.update(cpu.thread_environment(cpus, cpus))
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from benchdata import fill_arch, load
    from frameworks import get_backend, settings
    from models.catalog import model_config

    os.environ.update(settings.thread_environment(backend_name, cpus, cpus))
    backend = get_backend(backend_name)
    backend.configure_threads(cpus, cpus)
    cfg = model_config(model_name)
    data = load(cfg["dataset"], "synthetic", 0, cfg.get("view"))
    cfg = fill_arch(cfg, data)
    bs = cfg["batch_size"]
    return backend, cfg, data.x_train[:bs], data.y_train[:bs]


def warmed_steppers(
    backend: Any, model_name: str, variants: dict[str, dict[str, Any]], x: Any, y: Any, warmup: int
) -> dict[str, Callable[[Any, Any], Any]]:
    """Each variant's config built into its own model and training step (the step parity runs),
    then `warmup` untimed steps each: tracing and caches stay out of the timed blocks."""
    steppers = {}
    for name, cfg in variants.items():
        step = backend.make_step(backend.build(model_name, cfg, "cpu"), cfg)
        for _ in range(warmup):
            step(x, y)
        steppers[name] = step
    return steppers


def time_alternating(
    steppers: dict[str, Callable[[Any, Any], Any]], x: Any, y: Any, rounds: int, steps: int
) -> tuple[dict[str, list[float]], dict[str, float]]:
    """Seconds per step of each block, per variant, and each variant's median over its blocks."""
    per_step: dict[str, list[float]] = {name: [] for name in steppers}
    for _ in range(rounds):
        for name, step in steppers.items():
            t0 = time.perf_counter_ns()
            for _ in range(steps):
                step(x, y)
            per_step[name].append((time.perf_counter_ns() - t0) / steps / 1e9)
    return per_step, {name: statistics.median(v) for name, v in per_step.items()}
