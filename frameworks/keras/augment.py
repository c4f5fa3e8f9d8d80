"""Training-time image augmentation for the TensorFlow adapter: random shifts and horizontal flips.

What cifar10_cnn.py trained with, Keras 2's ImageDataGenerator(width_shift_range=0.1,
height_shift_range=0.1, horizontal_flip=True, fill_mode='nearest'), as conf/model/<name>.yaml's
`augment:` block describes it, built from Keras 3's own preprocessing layers: RandomTranslation
(shift uniform in ±fraction·size, per image) and RandomFlip('horizontal').

They run in the tf.data input pipeline (the adapter maps them over the training batches), not
inside the model: that is what Keras' guide recommends when training on a CPU, since the
pipeline prepares the next batches while the current one trains; the network itself stays the
one the parity checks compare, and validation data are never augmented.
"""

from __future__ import annotations

from typing import Any

import keras
from keras import layers


def make_augment(spec: dict[str, Any] | None, seed: int) -> keras.Sequential | None:
    """The augmentation a model's `augment:` config asks for (call it with training=True), or
    None where it has none. Seeded: the same seed gives the same augmented batches."""
    if not spec:
        return None
    steps: list[layers.Layer] = [
        layers.RandomTranslation(
            height_factor=float(spec["height_shift"]),
            width_factor=float(spec["width_shift"]),
            fill_mode=spec["fill_mode"],
            interpolation=spec["interpolation"],
            seed=seed,
        )
    ]
    if spec["horizontal_flip"]:
        steps.append(layers.RandomFlip("horizontal", seed=seed + 1))  # its own random stream
    return keras.Sequential(steps, name="augment")
