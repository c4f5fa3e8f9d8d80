"""The batch order both backends train on: one seeded permutation per epoch.

Index batches, not data batches, are shared: each backend gathers its own rows, as a torch
DataLoader or a tf.data pipeline would.
"""

from __future__ import annotations

import math

import numpy as np


def steps_per_epoch(
    n: int, batch_size: int, max_steps: int | None = None, partial_batch: bool = True
) -> int:
    """Batches per epoch (a partial last one included, as Keras and torch do, unless
    `partial_batch` is false: full batches only, as fit_generator's n // batch_size), capped.
    A set smaller than one batch still trains its one partial batch: zero steps would leave an
    epoch with nothing to time."""
    full_only = not partial_batch and n >= batch_size
    steps = n // batch_size if full_only else math.ceil(n / batch_size)
    return steps if max_steps is None else min(steps, max_steps)


def epoch_permutations(n: int, epochs: int, seed: int) -> np.ndarray:
    """int64 array [epochs, n]: row e is the sample order of epoch e."""
    rng = np.random.default_rng([seed, 0x5EED])
    return np.stack([rng.permutation(n) for _ in range(epochs)])


def epoch_batches(order: np.ndarray, batch_size: int, steps: int) -> list[np.ndarray]:
    """Split one epoch's order into `steps` index batches."""
    return [order[i * batch_size : (i + 1) * batch_size] for i in range(steps)]
