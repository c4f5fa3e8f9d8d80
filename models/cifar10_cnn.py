"""CIFAR-10 CNN (Keras example cifar10_cnn.py, 2017 benchmark): 1,250,858 parameters.

Conv 32 same, relu, Conv 32 valid, relu, MaxPool 2, Dropout 0.25, Conv 64 same, relu, Conv 64
valid, relu, MaxPool 2, Dropout 0.25, Flatten, Dense 512 relu, Dropout 0.5, Dense 10 softmax;
RMSprop lr 1e-4 with Keras 2's per-step decay 1e-6; batch 32. Input NHWC 32x32x3.

The training-time augmentation (random shifts and horizontal flips, ImageDataGenerator in the
original) is not part of the network: it is data, described by conf/model/cifar10_cnn.yaml's
`augment:` block and applied by each framework adapter to training batches only.
"""

from __future__ import annotations

OUTPUT = "softmax"
LAYERS = {
    "conv1": "conv2d",
    "conv2": "conv2d",
    "conv3": "conv2d",
    "conv4": "conv2d",
    "fc1": "dense",
    "predictions": "dense",
}


def _sides(side: int, kernel_size: int, pool_size: int) -> tuple[int, int, int, int]:
    """Feature-map sides after conv2 (valid), pool1, conv4 (valid) and pool2; 'same' keeps size."""
    s2 = side - (kernel_size - 1)
    p1 = s2 // pool_size
    s4 = p1 - (kernel_size - 1)
    return s2, p1, s4, s4 // pool_size


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
    """Per sample matrix products (models/flops.py rules): conv1 reads the (augmented) data,
    so no input gradient; pooling is not counted."""
    from models import flops

    s2, p1, s4, p2 = _sides(side, kernel_size, pool_size)
    k = kernel_size
    return [
        *flops.conv2d_layer("conv1", side, side, channels, filters1, k, input_grad=False),
        *flops.conv2d_layer("conv2", s2, s2, filters1, filters1, k),
        *flops.conv2d_layer("conv3", p1, p1, filters1, filters2, k),
        *flops.conv2d_layer("conv4", s4, s4, filters2, filters2, k),
        *flops.dense_layer("fc1", p2 * p2 * filters2, dense_units),
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

    p2 = _sides(side, kernel_size, pool_size)[3]
    # padding=kernel_size // 2 is Keras' 'same' for odd kernels at stride 1 (1 pixel each side).
    same = kernel_size // 2
    return keras_init_(
        nn.Sequential(
            OrderedDict(
                nchw=NHWCToNCHW(),  # data arrive NHWC, as Keras takes them (see torch_layers)
                conv1=nn.Conv2d(channels, filters1, kernel_size, padding=same),
                relu1=nn.ReLU(),
                conv2=nn.Conv2d(filters1, filters1, kernel_size),
                relu2=nn.ReLU(),
                pool1=nn.MaxPool2d(pool_size),
                drop1=nn.Dropout(conv_dropout),
                conv3=nn.Conv2d(filters1, filters2, kernel_size, padding=same),
                relu3=nn.ReLU(),
                conv4=nn.Conv2d(filters2, filters2, kernel_size),
                relu4=nn.ReLU(),
                pool2=nn.MaxPool2d(pool_size),
                drop2=nn.Dropout(conv_dropout),
                flatten=FlattenNHWC(),  # Keras' order, so fc1 takes Keras' kernel unchanged
                fc1=nn.Linear(p2 * p2 * filters2, dense_units),
                relu5=nn.ReLU(),
                drop3=nn.Dropout(dense_dropout),
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

    # Written as the original: separate Activation layers after each Conv2D and Dense.
    return keras.Sequential(
        [
            keras.Input(shape=(side, side, channels)),
            layers.Conv2D(filters1, kernel_size, padding="same", name="conv1"),
            layers.Activation("relu"),
            layers.Conv2D(filters1, kernel_size, padding="valid", name="conv2"),
            layers.Activation("relu"),
            layers.MaxPooling2D(pool_size),
            layers.Dropout(conv_dropout),
            layers.Conv2D(filters2, kernel_size, padding="same", name="conv3"),
            layers.Activation("relu"),
            layers.Conv2D(filters2, kernel_size, padding="valid", name="conv4"),
            layers.Activation("relu"),
            layers.MaxPooling2D(pool_size),
            layers.Dropout(conv_dropout),
            layers.Flatten(),
            layers.Dense(dense_units, name="fc1"),
            layers.Activation("relu"),
            layers.Dropout(dense_dropout),
            layers.Dense(classes, name="predictions"),
            layers.Activation("softmax"),
        ],
        name="cifar10_cnn",
    )
