"""One adapter per framework behind a common interface (frameworks.base.Backend).

Adapters are imported lazily by name so that importing this package never loads a framework:
the worker imports exactly one, after pinning CPUs and setting thread variables.
"""

from __future__ import annotations

from frameworks.base import Backend
from frameworks.registry import BACKENDS, spec


def get_backend(name: str) -> Backend:
    return spec(name).load()


__all__ = ["BACKENDS", "Backend", "get_backend", "spec"]
