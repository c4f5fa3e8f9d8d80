"""MNIST CNN (Keras example mnist_cnn.py, 2017 benchmark): 1,199,882 parameters.

Conv 32 3x3 relu, Conv 64 3x3 relu, MaxPool 2, Dropout 0.25, Flatten, Dense 128 relu,
Dropout 0.5, Dense 10 softmax; Adadelta (Keras 2 defaults); batch 128. Input NHWC 28x28x1.
"""

from __future__ import annotations

OUTPUT = "softmax"
LAYERS = {"conv1": "conv2d", "conv2": "conv2d", "fc1": "dense", "predictions": "dense"}


def _feature_side(side: int, kernel_size: int, pool_size: int) -> int:
    """Side of the feature map after two 'valid' convolutions and the pooling."""
    return (side - 2 * (kernel_size - 1)) // pool_size


def flop_products(
    side: int,
    channels: int,
    filters1: int,
    filters2: int,
    kernel_size: int,
    pool_size: int,
    dense_units: int,
    classes: int,
    **_,
) -> list:
    """Per sample matrix products (models/flops.py rules): conv1 reads the data, so no input
    gradient; pooling is not counted."""
    from models import flops

    s1, s2 = side - (kernel_size - 1), side - 2 * (kernel_size - 1)
    flat = _feature_side(side, kernel_size, pool_size) ** 2 * filters2
    k = kernel_size
    return [
        *flops.conv2d_layer("conv1", s1, s1, channels, filters1, k, input_grad=False),
        *flops.conv2d_layer("conv2", s2, s2, filters1, filters2, k),
        *flops.dense_layer("fc1", flat, dense_units),
        *flops.dense_layer("predictions", dense_units, classes),
    ]


def forward_flops(**arch) -> int:
    """Per sample, forward (models/flops.py rules)."""
    from models import flops

    return flops.forward(flop_products(**arch))


def torch_model(
    side: int,
    channels: int,
    filters1: int,
    filters2: int,
    kernel_size: int,
    pool_size: int,
    conv_dropout: float,
    dense_units: int,
    dense_dropout: float,
    classes: int,
):
    from collections import OrderedDict

    from torch import nn

    from models.torch_init import keras_init_
    from models.torch_layers import FlattenNHWC, NHWCToNCHW

    flat = _feature_side(side, kernel_size, pool_size) ** 2 * filters2
    return keras_init_(
        nn.Sequential(
            OrderedDict(
                nchw=NHWCToNCHW(),  # data arrive NHWC, as Keras takes them (see torch_layers)
                conv1=nn.Conv2d(channels, filters1, kernel_size),
                relu1=nn.ReLU(),
                conv2=nn.Conv2d(filters1, filters2, kernel_size),
                relu2=nn.ReLU(),
                pool=nn.MaxPool2d(pool_size),
                drop1=nn.Dropout(conv_dropout),
                flatten=FlattenNHWC(),  # Keras' order, so fc1 takes Keras' kernel unchanged
                fc1=nn.Linear(flat, dense_units),
                relu3=nn.ReLU(),
                drop2=nn.Dropout(dense_dropout),
                predictions=nn.Linear(dense_units, classes),  # logits: softmax is in the loss
            )
        )
    )


def keras_model(
    side: int,
    channels: int,
    filters1: int,
    filters2: int,
    kernel_size: int,
    pool_size: int,
    conv_dropout: float,
    dense_units: int,
    dense_dropout: float,
    classes: int,
):
    import keras
    from keras import layers

    return keras.Sequential(
        [
            keras.Input(shape=(side, side, channels)),
            layers.Conv2D(filters1, kernel_size, activation="relu", name="conv1"),
            layers.Conv2D(filters2, kernel_size, activation="relu", name="conv2"),
            layers.MaxPooling2D(pool_size),
            layers.Dropout(conv_dropout),
            layers.Flatten(),
            layers.Dense(dense_units, activation="relu", name="fc1"),
            layers.Dropout(dense_dropout),
            layers.Dense(classes, activation="softmax", name="predictions"),
        ],
        name="cnn",
    )
