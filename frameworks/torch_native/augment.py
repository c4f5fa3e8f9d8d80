"""Training-time image augmentation for the torch adapter: random shifts and horizontal flips.

What cifar10_cnn.py trained with, Keras 2's ImageDataGenerator(width_shift_range=0.1,
height_shift_range=0.1, horizontal_flip=True, fill_mode='nearest'), as conf/model/<name>.yaml's
`augment:` block describes it. Each image gets its own shift, drawn uniformly in
±fraction·size pixels and rounded to whole pixels (Keras 2.0 resampled with scipy's order-0
interpolation), the vacated border repeats the edge pixels, and half the images are mirrored.

Done on the whole NHWC batch at once as one gather: per-image source-row and source-column
indices (clamped at the edges, which is exactly 'nearest' fill, and reversed for mirrored
images), then a single advanced-indexing copy. No per-image Python loop, no float resampling,
and it runs on the batch's device. Its random numbers come from a generator of its own, seeded
from the run's seed, so dropout's random stream is the same with or without augmentation.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import torch

SUPPORTED = {"fill_mode": "nearest", "interpolation": "nearest"}


class ShiftFlip:
    """Random whole-pixel shifts with edge fill and random left-right mirroring of NHWC batches."""

    def __init__(
        self,
        width_shift: float,
        height_shift: float,
        horizontal_flip: bool,
        seed: int,
        device: torch.device | str = "cpu",
    ):
        self.width_shift, self.height_shift = width_shift, height_shift
        self.horizontal_flip = horizontal_flip
        self.device = torch.device(device)
        self.generator = torch.Generator(device=self.device)
        self.generator.manual_seed(seed)

    def _shifts(self, n: int, max_shift: float) -> torch.Tensor:
        """n whole-pixel shifts: uniform in [-max_shift, max_shift], rounded."""
        u = torch.rand(n, generator=self.generator, device=self.device)
        return torch.round((2 * u - 1) * max_shift).long()

    def __call__(self, x: torch.Tensor) -> torch.Tensor:
        n, h, w = x.shape[:3]
        dy = self._shifts(n, self.height_shift * h)
        dx = self._shifts(n, self.width_shift * w)
        # Output pixel (i, j) of image k reads source pixel (rows[k, i], cols[k, j]).
        rows = (torch.arange(h, device=x.device) - dy[:, None]).clamp_(0, h - 1)
        cols = (torch.arange(w, device=x.device) - dx[:, None]).clamp_(0, w - 1)
        if self.horizontal_flip:
            flip = torch.rand(n, generator=self.generator, device=self.device) < 0.5
            cols = torch.where(flip[:, None], w - 1 - cols, cols)
        batch = torch.arange(n, device=x.device)[:, None, None]
        return x[batch, rows[:, :, None], cols[:, None, :]]


def make_augment(
    spec: dict[str, Any] | None, seed: int, device: torch.device | str = "cpu"
) -> Callable[[torch.Tensor], torch.Tensor] | None:
    """The augmentation a model's `augment:` config asks for, or None where it has none."""
    if not spec:
        return None
    for key, value in SUPPORTED.items():
        if spec[key] != value:
            raise ValueError(
                f"augment.{key}={spec[key]!r} is not implemented for torch; use {value}"
            )
    return ShiftFlip(
        float(spec["width_shift"]),
        float(spec["height_shift"]),
        bool(spec["horizontal_flip"]),
        seed,
        device,
    )
