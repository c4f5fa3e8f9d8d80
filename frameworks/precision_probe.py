"""Which adapter's precision probe runs bfloat16 parity's forward pass and loss for a backend:
native torch's (frameworks/torch_native/precision_probe.py) or Keras' on any runtime
(frameworks/keras/precision_probe.py). Each is imported only when its framework is the one the
stage process runs."""

from __future__ import annotations

from typing import Any

import numpy as np

from frameworks import registry
from frameworks.base import Backend


def probe(
    backend: Backend,
    model: Any,
    model_name: str,
    model_cfg: dict[str, Any],
    x: np.ndarray,
    y: np.ndarray,
    mutation: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """{"ops", "loss_dtype", "loss", "variable_dtypes", "probs"}: one traced forward pass and
    loss on `x`, `y` in the backend's precision, with `mutation` (parity's tests) applied."""
    api = registry.spec(backend.name).api
    if api == "keras":
        from frameworks.keras import precision_probe as keras_probe

        return keras_probe.probe(backend, model, model_name, model_cfg, x, y, mutation)
    if api == "torch":
        from frameworks.torch_native import precision_probe as torch_probe

        return torch_probe.probe(model, model_name, model_cfg, x, y, backend.precision, mutation)
    raise NotImplementedError(f"no precision probe for the {api} API ({backend.name})")
