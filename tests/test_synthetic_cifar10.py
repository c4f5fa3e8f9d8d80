"""Synthetic CIFAR-10 has the real set's shapes, types and pixel statistics, a learnable but
not trivial signal, and is deterministic in the seed."""

from __future__ import annotations

import numpy as np
import pytest

from benchdata import load, synthetic_cifar10

# Real CIFAR-10's training set, scaled to [0, 1]: per-channel means and standard deviations.
REAL_MEAN, REAL_STD = (0.4914, 0.4822, 0.4465), (0.2470, 0.2435, 0.2616)


@pytest.fixture(scope="module")
def cifar():
    return load("cifar10", "synthetic", seed=0, view="image")


def test_shapes_types_and_range_match_real_cifar10(cifar):
    assert cifar.x_train.shape == (50_000, 32, 32, 3) and cifar.x_test.shape == (10_000, 32, 32, 3)
    assert cifar.x_train.dtype == cifar.x_test.dtype == np.float32
    assert cifar.y_train.dtype == np.int64 and cifar.y_test.shape == (10_000,)
    assert cifar.x_train.min() == 0.0 and cifar.x_train.max() == 1.0
    # Values are uint8 levels scaled by 1/255, as in the Keras example.
    levels = cifar.x_test[:200] * 255
    assert np.allclose(levels, np.round(levels), atol=1e-3)
    assert cifar.x_train.flags.c_contiguous  # NHWC in memory, as both backends take it


def test_pixel_statistics_are_cifar_like(cifar):
    pixels = cifar.x_train[:10_000].reshape(-1, 3)  # 30 million values: plenty, and quick
    np.testing.assert_allclose(pixels.mean(0, dtype=np.float64), REAL_MEAN, atol=0.01)
    np.testing.assert_allclose(pixels.std(0, dtype=np.float64), REAL_STD, atol=0.01)
    sample = cifar.x_train[:2000].astype(np.float64)
    # Smooth images: neighbouring pixels correlate strongly, across rows and across columns.
    across = np.corrcoef(sample[:, :, :-1].ravel(), sample[:, :, 1:].ravel())[0, 1]
    down = np.corrcoef(sample[:, :-1].ravel(), sample[:, 1:].ravel())[0, 1]
    assert across > 0.7 and down > 0.7
    # The channels share most of their structure (brightness), as in photographs.
    channels = np.corrcoef(sample.reshape(-1, 3).T)
    assert channels[np.triu_indices(3, 1)].min() > 0.5
    # Few pixels saturate: the mapping to [0, 1] clips only the tails.
    assert (sample == 0).mean() < 0.06 and (sample == 1).mean() < 0.06


def test_classes_are_balanced(cifar):
    assert set(np.bincount(cifar.y_train)) == {5_000}
    assert set(np.bincount(cifar.y_test)) == {1_000}


def test_deterministic_in_the_seed(monkeypatch):
    monkeypatch.setattr(synthetic_cifar10, "N_TRAIN", 1_000)
    monkeypatch.setattr(synthetic_cifar10, "N_TEST", 200)
    a, b, c = (load("cifar10", "synthetic", seed=s, view="image") for s in (3, 3, 4))
    assert np.array_equal(a.x_train, b.x_train) and np.array_equal(a.x_test, b.x_test)
    assert np.array_equal(a.y_train, b.y_train)
    assert not np.array_equal(a.x_test, c.x_test)


def test_images_depend_on_their_class_but_not_trivially(cifar):
    """A nearest-class-mean classifier does far better than chance on the test set, and far
    worse than perfect: classes overlap and objects move, as on CIFAR-10 (where it gets ~28%)."""

    def nearest_mean_accuracy(labels: np.ndarray) -> float:
        x = cifar.x_train.reshape(len(labels), -1)
        means = np.stack([x[labels == k].mean(0, dtype=np.float64) for k in range(10)])
        test = cifar.x_test.reshape(len(cifar.x_test), -1).astype(np.float64)
        distance = (means**2).sum(1) - 2 * test @ means.T  # |t - m|^2 up to a per-row constant
        return float((distance.argmin(1) == cifar.y_test).mean())

    accuracy = nearest_mean_accuracy(cifar.y_train)
    shuffled = nearest_mean_accuracy(np.random.default_rng(0).permutation(cifar.y_train))
    assert shuffled < 0.13  # chance: 0.1
    assert 0.15 < accuracy < 0.6


def test_an_unknown_view_is_refused():
    with pytest.raises(ValueError, match="unknown CIFAR-10 view 'flat'"):
        synthetic_cifar10.generate(seed=0, view="flat")
