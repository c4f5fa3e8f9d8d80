"""Step 1 of every process that measures (the worker, the kernel probe): pin the CPUs and set the
thread variables before any framework is imported, from the run's spec file."""

from __future__ import annotations

import os
from typing import Any

from frameworks import settings
from twinbench.config.spec import RunSpec
from twinbench.machine import cpu

SPEC_FILE = "spec.json"  # the resolved config the parent writes into the run's directory


def budget_environment(spec: RunSpec) -> dict[str, str]:
    """The variables a run's native libraries read when they load: thread counts, and the
    backend's own (e.g. TF_ENABLE_ONEDNN_OPTS). The parent also puts them in the worker's
    environment at spawn, so that even numpy, which the worker loads before it pins anything,
    sizes its OpenBLAS pool by the budget."""
    env = cpu.thread_environment(spec.threads, spec.interop_threads)
    env.update(settings.environment(spec.backend_cfg))
    env.update(settings.device_environment(spec.backend, spec.device))
    env.update(settings.thread_environment(spec.backend, spec.threads, spec.interop_threads))
    return env


def apply_cpu_budget(spec: RunSpec) -> dict[str, Any]:
    """Affinity and thread variables, before any framework import."""
    affinity = cpu.pin(spec.cores)
    env = budget_environment(spec)
    os.environ.update(env)
    return {"affinity": affinity, "thread_env": env}
