"""Synthetic CIFAR-10: the real set's shapes, types and pixel statistics, and a learnable signal.

Real CIFAR-10: 50,000 train and 10,000 test 32x32 RGB uint8 images, 10 balanced classes; scaled
to [0, 1], per-channel means 0.491, 0.482, 0.447 and standard deviations 0.247, 0.243, 0.262;
neighbouring pixels and the three channels are strongly correlated (smooth photographs).

Here every image is the sum of three zero-mean parts, mapped to those per-channel means and
deviations, clipped to [0, 1] and quantised to uint8 levels (then scaled by 1/255 to float32,
NHWC, as the Keras example feeds it: 614 MB train + 123 MB test):
- its class's object: a smooth colour pattern (a coarse 8x8 random grid upsampled bilinearly)
  in one of 4 poses, at a random strength and colour balance, shifted by up to 8 pixels and
  mirrored left-right half of the time, so shifts and flips preserve the label as on CIFAR. A
  pose mixes the class's own component, its own and one drawn from a pool of 5 that all
  classes draw from, so classes partly resemble each other; patterns have no mean colour, so
  colour alone does not give the class away;
- a smooth background of its own;
- pixel noise (uniform, scaled to the wanted variance).
Brightness is shared by the channels (CHROMA sets the channel-specific share).

Measured with seed 0 (tests/test_synthetic_cifar10.py checks them): per-channel means 0.491,
0.486, 0.451 and deviations 0.246, 0.244, 0.258; neighbouring-pixel correlation 0.84; channel
correlations 0.71; 4% of values at 0 and 3% at 1 after clipping. Difficulty, like CIFAR-10's:
a nearest-class-mean classifier scores 20% on the test set and a ridge linear classifier on
20,000 images 34% (on real CIFAR-10 such classifiers reach roughly 28% and 40%), while
cifar10_cnn in torch (Adam 1e-3, 15,000 images) went 25%, 33%, 46% in its first three epochs:
a network must learn shift- and mirror-tolerant colour shapes against clutter, and accuracy
climbs over epochs.
Deterministic in `seed`; vectorised in chunks of 5,000 images, about 2 s of CPU time.
"""

from __future__ import annotations

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from benchdata import Dataset

N_TRAIN, N_TEST, SIDE, CHANNELS, CLASSES = 50_000, 10_000, 32, 3, 10
MEAN = np.array([0.4914, 0.4822, 0.4465], np.float32)  # real CIFAR-10 training set
STD = np.array([0.2470, 0.2435, 0.2616], np.float32)
MAX_SHIFT = 8
OBJECT_GRID, BACKGROUND_GRID = 8, 4  # coarse grid points across the image before upsampling
VARIANTS = 4  # poses per class
SHARED_PATTERNS = 5  # variants draw a component from this pool, shared across classes
CLASS_WEIGHT, VARIANT_WEIGHT, SHARED_WEIGHT = 1.0, 0.8, 0.8
COLOUR_JITTER = 0.3
OBJECT_STRENGTH = (0.5, 1.0)  # uniform range of the object's amplitude
BACKGROUND_STRENGTH, NOISE_STRENGTH = 1.0, 0.5
CHROMA = 0.4  # channel-specific share of each pattern; the rest is common to the channels
CLIP_GAIN = 1.07  # clipping to [0, 1] trims the tails: widen first so the deviation lands on STD
CHUNK = 5_000  # images generated at once: bounds temporary memory to ~60 MB per array


def _upsampler(coarse: int, fine: int) -> np.ndarray:
    """[fine, coarse] bilinear interpolation matrix (rows sum to 1)."""
    pos = np.linspace(0, coarse - 1, fine)
    lo = np.minimum(pos.astype(int), coarse - 2)
    frac = pos - lo
    m = np.zeros((fine, coarse), np.float32)
    m[np.arange(fine), lo] = 1 - frac
    m[np.arange(fine), lo + 1] = frac
    return m


def _smooth(grid: np.ndarray, up: np.ndarray) -> np.ndarray:
    """[..., c, g, g] coarse values -> [..., c, f, f] smooth field: up @ grid @ up.T."""
    return np.matmul(np.matmul(up, grid), up.T)


def _coloured(rng: np.random.Generator, shape: tuple[int, ...]) -> np.ndarray:
    """Unit normal values, [..., channels, g, g], correlated across channels as in photographs:
    a share common to the channels (brightness) plus a CHROMA share of their own (colour)."""
    common = rng.standard_normal((*shape[:-3], 1, *shape[-2:]))
    return np.sqrt(1 - CHROMA**2) * common + CHROMA * rng.standard_normal(shape)


def _canvases(rng: np.random.Generator) -> np.ndarray:
    """[classes, VARIANTS, 2 (mirrored or not), 3, 32 + 2*MAX_SHIFT, same]: each class's object
    patterns on a canvas that an image crops at its shift. A variant (pose) is the class's own
    component, one of the variant's own and one from a pool other classes draw from too.

    Generation works channels-first (each channel an image-sized matrix); images are written
    out NHWC at the very end.
    """
    big = SIDE + 2 * MAX_SHIFT
    up = _upsampler(OBJECT_GRID, big)

    def fields(*shape: int) -> np.ndarray:
        field = _smooth(_coloured(rng, (*shape, CHANNELS, OBJECT_GRID, OBJECT_GRID)), up)
        return field / field.std()

    own, variant, pool = fields(CLASSES, 1), fields(CLASSES, VARIANTS), fields(SHARED_PATTERNS)
    shared = pool[rng.integers(0, SHARED_PATTERNS, (CLASSES, VARIANTS))]
    patterns = CLASS_WEIGHT * own + VARIANT_WEIGHT * variant + SHARED_WEIGHT * shared
    # No class may differ by its average colour alone: a linear model would read that off.
    patterns -= patterns.mean(axis=(-2, -1), keepdims=True)
    patterns /= patterns.std(axis=(-3, -2, -1), keepdims=True)
    return np.stack([patterns, patterns[..., ::-1]], axis=2).astype(np.float32)


def _images(rng: np.random.Generator, canvases: np.ndarray, labels: np.ndarray) -> np.ndarray:
    """uint8 [n, 32, 32, 3] for `labels`, generated CHUNK images at a time.

    Work is in uint8 levels (0..255) and every constant factor is folded into the small
    per-image arrays, so each chunk makes few passes over its big arrays.
    """
    # Every placement of every pattern, as a strided view: drawing the objects is one gather.
    windows = sliding_window_view(canvases, (SIDE, SIDE), axis=(-2, -1))  # [..., dy, dx, 32, 32]
    up = _upsampler(BACKGROUND_GRID, SIDE)
    # Interpolating between grid points averages them, which shrinks the variance: restore 1.
    gain = 1 / float(np.mean(np.sum(up**2, axis=1)))
    # Object (unit variance x strength), background and noise (unit variance each) add up to
    # total_std; `scale` maps that to the target deviation, in uint8 levels, per channel.
    lo, hi = OBJECT_STRENGTH
    total_std = np.sqrt(
        (lo * lo + lo * hi + hi * hi) / 3 + BACKGROUND_STRENGTH**2 + NOISE_STRENGTH**2
    )
    scale = ((255 * CLIP_GAIN / total_std) * STD)[:, None, None]  # [3, 1, 1]
    # Uniform noise in [0, 1) has variance 1/12: sqrt(12) makes it unit, and its mean 0.5 moves
    # into the offset, which the background carries (upsampling rows sum to 1, so a constant on
    # the coarse grid is the same constant on every pixel).
    noise_scale = (NOISE_STRENGTH * np.sqrt(12.0) * scale).astype(np.float32)
    offset = 255 * MEAN[:, None, None] - 0.5 * noise_scale
    out = np.empty((len(labels), SIDE, SIDE, CHANNELS), np.uint8)
    for start in range(0, len(labels), CHUNK):
        lab = labels[start : start + CHUNK]
        n = len(lab)
        flip, variant = rng.integers(0, 2, n), rng.integers(0, VARIANTS, n)
        dy, dx = rng.integers(0, 2 * MAX_SHIFT + 1, size=(2, n))
        x = windows[lab, variant, flip, :, dy, dx]  # [n, 3, 32, 32], a new array
        # The object's strength and colour balance vary from image to image.
        strength = rng.uniform(lo, hi, (n, 1, 1, 1)) * rng.uniform(
            1 - COLOUR_JITTER, 1 + COLOUR_JITTER, (n, CHANNELS, 1, 1)
        )
        x *= (strength * scale).astype(np.float32)
        grid = _coloured(rng, (n, CHANNELS, BACKGROUND_GRID, BACKGROUND_GRID))
        x += _smooth(((BACKGROUND_STRENGTH * gain) * scale * grid + offset).astype(np.float32), up)
        noise = rng.random(x.shape, np.float32)
        noise *= noise_scale
        x += noise
        np.clip(x, 0, 255, out=x)
        np.rint(x, out=out[start : start + n].transpose(0, 3, 1, 2), casting="unsafe")
    return out


def generate(seed: int = 0, view: str = "image") -> Dataset:
    """x [n, 32, 32, 3] float32 in [0, 1] (NHWC, as Keras' example), y int64 class ids."""
    if view != "image":
        raise ValueError(f"unknown CIFAR-10 view '{view}'; use 'image'")
    rng = np.random.default_rng([seed, 0xC1FA10])
    canvases = _canvases(rng)
    y_train = rng.permutation(np.arange(N_TRAIN) % CLASSES).astype(np.int64)
    y_test = rng.permutation(np.arange(N_TEST) % CLASSES).astype(np.int64)

    def scaled(labels: np.ndarray) -> np.ndarray:
        x = _images(rng, canvases, labels).astype(np.float32)
        return np.divide(x, 255.0, out=x)  # in place: the float array is the big one

    return Dataset(
        name="cifar10",
        x_train=scaled(y_train),
        y_train=y_train,
        x_test=scaled(y_test),
        y_test=y_test,
        info={"source": "synthetic", "seed": seed, "view": view, "classes": CLASSES},
    )
