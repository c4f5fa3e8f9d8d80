"""MNIST MLP (Keras example mnist_mlp.py, 2017 benchmark): 784-512-512-10, 669,706 parameters.

Dense 512 relu, Dropout 0.2, Dense 512 relu, Dropout 0.2, Dense 10 softmax; RMSprop; batch 128.
"""

from __future__ import annotations

OUTPUT = "softmax"
LAYERS = {"fc1": "dense", "fc2": "dense", "predictions": "dense"}


def flop_products(input_dim: int, hidden: int, classes: int, **_) -> list:
    """Per sample matrix products (models/flops.py rules): fc1 reads the data, so no input
    gradient."""
    from models import flops

    return [
        *flops.dense_layer("fc1", input_dim, hidden, input_grad=False),
        *flops.dense_layer("fc2", hidden, hidden),
        *flops.dense_layer("predictions", hidden, classes),
    ]


def forward_flops(**arch) -> int:
    """Per sample, forward (models/flops.py rules)."""
    from models import flops

    return flops.forward(flop_products(**arch))


def torch_model(input_dim: int, hidden: int, dropout: float, classes: int):
    from collections import OrderedDict

    from torch import nn

    from models.torch_init import keras_init_

    return keras_init_(
        nn.Sequential(
            OrderedDict(
                fc1=nn.Linear(input_dim, hidden),
                relu1=nn.ReLU(),
                drop1=nn.Dropout(dropout),
                fc2=nn.Linear(hidden, hidden),
                relu2=nn.ReLU(),
                drop2=nn.Dropout(dropout),
                predictions=nn.Linear(hidden, classes),  # logits: softmax lives in the loss
            )
        )
    )


def keras_model(input_dim: int, hidden: int, dropout: float, classes: int):
    import keras
    from keras import layers

    return keras.Sequential(
        [
            keras.Input(shape=(input_dim,)),
            layers.Dense(hidden, activation="relu", name="fc1"),
            layers.Dropout(dropout),
            layers.Dense(hidden, activation="relu", name="fc2"),
            layers.Dropout(dropout),
            layers.Dense(classes, activation="softmax", name="predictions"),
        ],
        name="mlp",
    )
