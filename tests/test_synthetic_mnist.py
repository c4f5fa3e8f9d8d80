"""Synthetic MNIST has the real set's shapes, types and statistics, and is deterministic."""

from __future__ import annotations

import numpy as np
import pytest

from benchdata import batching, load


@pytest.fixture(scope="module")
def mnist():
    return load("mnist", "synthetic", seed=0)


def test_shapes_types_and_range_match_real_mnist(mnist):
    assert mnist.x_train.shape == (60_000, 784) and mnist.x_test.shape == (10_000, 784)
    assert mnist.x_train.dtype == np.float32 and mnist.y_train.dtype == np.int64
    assert mnist.x_train.min() >= 0.0 and mnist.x_train.max() <= 1.0
    # Values are uint8 levels scaled by 1/255, as in the Keras example.
    levels = mnist.x_test[:100] * 255
    assert np.allclose(levels, np.round(levels), atol=1e-3)
    # Mostly black background, like MNIST (mean 0.13, about 19% of pixels lit).
    assert 0.05 < mnist.x_train.mean() < 0.2 and 0.08 < (mnist.x_train > 0).mean() < 0.3


def test_classes_are_balanced(mnist):
    assert set(np.bincount(mnist.y_train)) == {6_000}
    assert set(np.bincount(mnist.y_test)) == {1_000}


def test_deterministic_in_the_seed():
    a, b, c = (load("mnist", "synthetic", seed=s) for s in (3, 3, 4))
    assert np.array_equal(a.x_test, b.x_test) and np.array_equal(a.y_test, b.y_test)
    assert not np.array_equal(a.x_test, c.x_test)


def test_image_view_is_the_flat_view_reshaped_nhwc():
    flat, image = (load("mnist", "synthetic", 1, view) for view in ("flat", "image"))
    assert image.x_train.shape == (60_000, 28, 28, 1)
    assert np.array_equal(image.x_test.reshape(10_000, 784), flat.x_test)


def test_images_depend_on_their_class_so_the_task_is_learnable(mnist):
    def closest_class_means(labels):
        means = np.stack([mnist.x_train[labels == c].mean(0) for c in range(10)])
        distances = np.linalg.norm(means[:, None] - means[None], axis=-1)
        return distances[~np.eye(10, dtype=bool)]

    shuffled = np.random.default_rng(0).permutation(mnist.y_train)
    # Every pair of classes is further apart than any pair would be if labels were noise.
    assert closest_class_means(mnist.y_train).min() > 5 * closest_class_means(shuffled).max()


def test_batch_order_is_one_seeded_permutation_per_epoch():
    orders = batching.epoch_permutations(1000, epochs=3, seed=7)
    assert orders.shape == (3, 1000)
    for row in orders:
        assert np.array_equal(np.sort(row), np.arange(1000))
    assert not np.array_equal(orders[0], orders[1])
    assert np.array_equal(orders, batching.epoch_permutations(1000, epochs=3, seed=7))


def test_steps_per_epoch_keeps_the_partial_last_batch_and_honours_the_cap():
    assert batching.steps_per_epoch(60_000, 128) == 469
    assert batching.steps_per_epoch(60_000, 128, max_steps=10) == 10
    # cifar10_cnn's fit_generator(steps_per_epoch=x_train.shape[0] // batch_size): full batches
    assert batching.steps_per_epoch(50_000, 32, partial_batch=False) == 1562
    assert batching.steps_per_epoch(20, 32, partial_batch=False) == 1  # never an empty epoch
    batches = batching.epoch_batches(np.arange(300), 128, 3)
    assert [len(b) for b in batches] == [128, 128, 44]
