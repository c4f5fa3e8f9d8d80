"""Synthetic MNIST: the real set's shapes, types and pixel statistics, and a learnable signal.

Real MNIST: 60,000 train and 10,000 test 28x28 uint8 grey images, 10 balanced classes, mostly
black background (mean intensity about 0.13 after scaling to [0, 1]). Here each class has a
prototype of four thick strokes, two of them drawn from a pool that all classes share, so
classes overlap as 3, 5 and 8 do. An image keeps each stroke of its class with probability 0.75,
is shifted by up to three pixels, and gets random intensity and sparse noise. A network must learn
shift-tolerant, partly ambiguous shapes, as on MNIST, so accuracy climbs over epochs and stays
below 100% instead of jumping there.

Deterministic in `seed`; values are uint8 levels scaled to float32 in [0, 1].
"""

from __future__ import annotations

import numpy as np

from benchdata import Dataset

N_TRAIN, N_TEST, SIDE, CLASSES = 60_000, 10_000, 28, 10
MAX_SHIFT = 3
STROKES_PER_CLASS = 4
SHARED_STROKES_PER_CLASS = 2  # drawn from a pool every class draws from: classes overlap
SHARED_POOL = 6
KEEP_STROKE = 0.75
NOISE_FRACTION = 0.03


def _stroke(rng: np.random.Generator) -> np.ndarray:
    """One thick line segment, 28x28 float in [0, 1]."""
    yy, xx = np.mgrid[0:SIDE, 0:SIDE].astype(np.float32)
    (y0, x0), (y1, x1) = rng.uniform(6, SIDE - 6, size=(2, 2))
    t = np.clip(
        ((yy - y0) * (y1 - y0) + (xx - x0) * (x1 - x0))
        / max((y1 - y0) ** 2 + (x1 - x0) ** 2, 1e-6),
        0,
        1,
    )
    dist = np.hypot(yy - (y0 + t * (y1 - y0)), xx - (x0 + t * (x1 - x0)))
    return np.clip(1.6 - dist, 0, 1)


def _class_strokes(rng: np.random.Generator) -> np.ndarray:
    """[classes, strokes, 28, 28]: each class's strokes, some shared with other classes."""
    pool = np.stack([_stroke(rng) for _ in range(SHARED_POOL)])
    strokes = np.empty((CLASSES, STROKES_PER_CLASS, SIDE, SIDE), np.float32)
    for c in range(CLASSES):
        shared = rng.choice(SHARED_POOL, SHARED_STROKES_PER_CLASS, replace=False)
        strokes[c, :SHARED_STROKES_PER_CLASS] = pool[shared]
        for s in range(SHARED_STROKES_PER_CLASS, STROKES_PER_CLASS):
            strokes[c, s] = _stroke(rng)
    return strokes


def _images(rng: np.random.Generator, strokes: np.ndarray, labels: np.ndarray) -> np.ndarray:
    n = len(labels)
    keep = rng.random((n, STROKES_PER_CLASS)) < KEEP_STROKE
    keep[np.arange(n), rng.integers(0, STROKES_PER_CLASS, n)] = True  # never an empty image
    m = MAX_SHIFT
    padded = np.pad(strokes, ((0, 0), (0, 0), (m, m), (m, m)))
    shifts = rng.integers(0, 2 * m + 1, size=(n, 2))
    images = np.zeros((n, SIDE, SIDE), np.float32)
    # Group by shift so each group is one vectorised slice instead of n small copies.
    for dy in range(2 * m + 1):
        for dx in range(2 * m + 1):
            idx = np.flatnonzero((shifts[:, 0] == dy) & (shifts[:, 1] == dx))
            window = padded[labels[idx], :, dy : dy + SIDE, dx : dx + SIDE]
            images[idx] = (window * keep[idx, :, None, None]).max(axis=1)
    images *= rng.uniform(0.5, 1.0, size=(n, 1, 1)).astype(np.float32)
    noise = rng.random((n, SIDE, SIDE), dtype=np.float32)
    images = np.where(noise > 1 - NOISE_FRACTION, np.maximum(images, noise), images)
    return np.round(images * 255).astype(np.uint8)


def generate(seed: int = 0, view: str = "flat") -> Dataset:
    """view 'flat': x [n, 784]; view 'image': x [n, 28, 28, 1] (NHWC, as Keras' example)."""
    rng = np.random.default_rng([seed, 0x3A157])
    strokes = _class_strokes(rng)
    y_train = rng.permutation(np.arange(N_TRAIN) % CLASSES).astype(np.int64)
    y_test = rng.permutation(np.arange(N_TEST) % CLASSES).astype(np.int64)
    shape = (-1, SIDE * SIDE) if view == "flat" else (-1, SIDE, SIDE, 1)
    if view not in ("flat", "image"):
        raise ValueError(f"unknown MNIST view '{view}'; use 'flat' or 'image'")

    def scaled(labels: np.ndarray) -> np.ndarray:
        return _images(rng, strokes, labels).reshape(shape).astype(np.float32) / 255.0

    return Dataset(
        name="mnist",
        x_train=scaled(y_train),
        y_train=y_train,
        x_test=scaled(y_test),
        y_test=y_test,
        info={"source": "synthetic", "seed": seed, "view": view, "classes": CLASSES},
    )
