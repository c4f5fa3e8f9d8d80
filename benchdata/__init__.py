"""Framework-neutral datasets: synthetic generators and (later) real loaders, as numpy arrays.

Both backends receive the arrays returned here unchanged, and the batch order from batching.py.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np


@dataclass
class Dataset:
    name: str
    x_train: np.ndarray
    y_train: np.ndarray
    x_test: np.ndarray
    y_test: np.ndarray
    info: dict[str, Any] = field(default_factory=dict)  # recorded in result.json


SYNTHETIC_GENERATORS = {
    "mnist": "benchdata.synthetic_mnist:generate",
}


def load(name: str, source: str, seed: int, view: str | None = None) -> Dataset:
    """The dataset a model's config names, from `source` ('synthetic' for now).

    `view` selects the layout a model consumes (e.g. MNIST 'flat' 784-vectors or 'image' NHWC).
    """
    if source != "synthetic":
        raise ValueError(f"data source '{source}' is not available; use data=synthetic")
    if name not in SYNTHETIC_GENERATORS:
        raise ValueError(f"no dataset '{name}'; known: {', '.join(sorted(SYNTHETIC_GENERATORS))}")
    module_name, func = SYNTHETIC_GENERATORS[name].split(":")
    import importlib

    generate = getattr(importlib.import_module(module_name), func)
    dataset = generate(seed=seed) if view is None else generate(seed=seed, view=view)
    dataset.info.setdefault("source", source)
    return dataset
