"""One adapter per framework behind a common interface (frameworks.base.Backend).

Adapters are imported lazily by name so that importing this package never loads a framework:
the worker imports exactly one, after pinning CPUs and setting thread variables.
"""

from __future__ import annotations

import importlib

from frameworks.base import Backend

ADAPTERS = {
    "torch": "frameworks.torch_backend:TorchBackend",
    "tensorflow": "frameworks.tensorflow_backend:TensorFlowBackend",
}


def get_backend(name: str) -> Backend:
    if name not in ADAPTERS:
        raise ValueError(f"unknown backend '{name}'; choose one of: {', '.join(sorted(ADAPTERS))}")
    module_name, cls = ADAPTERS[name].split(":")
    return getattr(importlib.import_module(module_name), cls)()
