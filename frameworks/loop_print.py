"""What a training loop actually fed and scored, epoch by epoch, as the adapters see it: a
fingerprint the analysis compares across the backends of a sweep (analysis/compute/loops.py).

Per epoch: a SHA-256 of the batch order (every index batch the loop gathered, in order), one of
the first training batch's bytes (inputs and labels as gathered, before augmentation, which is
random per backend by design), the training samples fed, the validation samples scored, and how
a partial last batch weighs in the epoch's metrics. Hashing an index batch costs microseconds
against a step's milliseconds; the first batch's bytes are hashed once an epoch.
"""

from __future__ import annotations

import hashlib
from typing import Any

import numpy as np

# How the loops average a metric over an epoch's batches: each batch weighted by its samples,
# so a partial last batch counts for what it holds (torch's loop sums loss * len(batch); Keras'
# metric trackers take the batch size as the sample weight). "per batch" would be a plain mean.
PER_SAMPLE = "per sample"


class LoopPrint:
    """Filled by an adapter's loop; `epochs()` is what History.loop records."""

    def __init__(self, weighting: str = PER_SAMPLE) -> None:
        self.weighting = weighting
        # (epoch, step) -> indices: a loader that asks for a batch twice (a peek at its shape)
        # or out of order still records each step once, in step order.
        self._batches: dict[tuple[int, int], np.ndarray] = {}
        self._first: dict[int, str] = {}
        self._scored: dict[int, int] = {}

    def batch(
        self,
        epoch: int,
        step: int,
        idx: np.ndarray,
        first: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """Step `step`'s indices; with step 0 also `first`, its gathered inputs and labels (the
        caller converts them once an epoch, not every step)."""
        if step == 0:
            if first is None:
                raise ValueError(f"epoch {epoch}'s first batch came without its data")
            digest = hashlib.sha256()
            for part in first:
                digest.update(np.ascontiguousarray(part).tobytes())
            self._first[epoch] = digest.hexdigest()
        self._batches[epoch, step] = np.array(idx, dtype=np.int64)

    def validated(self, epoch: int, samples: int) -> None:
        self._scored[epoch] = samples

    def epochs(self) -> list[dict[str, Any]]:
        found = []
        for epoch in sorted({e for e, _ in self._batches}):
            steps = sorted(s for e, s in self._batches if e == epoch)
            order = hashlib.sha256()
            for step in steps:
                order.update(self._batches[epoch, step].tobytes())
            found.append(
                {
                    "batch_order_sha256": order.hexdigest(),
                    "first_batch_sha256": self._first.get(epoch),
                    "train_samples": sum(len(self._batches[epoch, s]) for s in steps),
                    "val_samples": self._scored.get(epoch, 0),
                    "partial_batch_weighting": self.weighting,
                }
            )
        return found
