"""The CPU budget the TensorFlow diagnostics ran under: two pinned cores, two intra- and two
inter-op threads, set before TensorFlow loads (so every diagnostic calls it first)."""

from __future__ import annotations

import os

from twinbench.machine import cpu


def pin_two_cores() -> None:
    cpu.pin(cpu.choose_cores(2))
    os.environ.update(cpu.thread_environment(2, 2))
    os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
