"""The CPU budget and workload the TensorFlow diagnostics ran under: two pinned cores, two intra-
and two inter-op threads, set before TensorFlow loads (so every diagnostic calls it first), and a
workload's configuration on its synthetic data."""

from __future__ import annotations

import os
from typing import Any

from twinbench.machine import cpu


def pin_two_cores() -> None:
    cpu.pin(cpu.choose_cores(2))
    os.environ.update(cpu.thread_environment(2, 2))
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"


def tensorflow_workload(name: str) -> tuple[Any, dict, Any]:
    """Keras-on-TensorFlow under the two-core budget, with `name`'s configuration (augmentation
    off, so that a step's time is the model's) and its synthetic data: (backend, cfg, data)."""
    pin_two_cores()  # before TensorFlow loads, hence the imports below
    from benchdata import fill_arch, load
    from frameworks import get_backend
    from models.catalog import model_config

    backend = get_backend("tensorflow")
    backend.configure_threads(2, 2)
    cfg = model_config(name)
    data = load(cfg["dataset"], "synthetic", 0, cfg.get("view"))
    return backend, {**fill_arch(cfg, data), "augment": None}, data
