"""The data set every backend receives: four numpy arrays and what the record says of them."""

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
