"""TensorLayer MNIST MLP (tutorial_mnist_simple.py, the example in TensorLayer's README):
784-800-800-10, 1,276,810 parameters.

Dropout 0.2 on the input, Dense 800 relu, Dropout 0.5, Dense 800 relu, Dropout 0.5, Dense 10;
Adam lr 1e-4; batch 500. TensorLayer's DropoutLayer takes the keep probability: its keep 0.8 and
keep 0.5 are rates 0.2 and 0.5 here. Its DenseLayer draws kernels from a normal of standard
deviation 0.1 truncated at two standard deviations (tf.truncated_normal_initializer(stddev=0.1))
and zero biases, in both halves here (`weight_stddev`). Its last layer is linear and the loss
applies softmax to the logits; the Keras half ends in softmax like every other model here, which
is the same function.
"""

from __future__ import annotations

OUTPUT = "softmax"
LAYERS = {"fc1": "dense", "fc2": "dense", "predictions": "dense"}


def flop_products(input_dim: int, hidden: int, classes: int, **_) -> list:
    """Per sample matrix products (models/flops.py rules): fc1 reads the (dropped-out) data,
    so no input gradient."""
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


def torch_model(
    input_dim: int,
    hidden: int,
    input_dropout: float,
    dropout: float,
    classes: int,
    weight_stddev: float,
):
    from collections import OrderedDict

    import torch
    from torch import nn

    from models.torch_init import keras_init_

    model = keras_init_(
        nn.Sequential(
            OrderedDict(
                drop0=nn.Dropout(input_dropout),
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
    with torch.no_grad():  # TensorLayer's kernels: truncated at +-2 standard deviations
        for layer in (model.fc1, model.fc2, model.predictions):
            nn.init.trunc_normal_(
                layer.weight, 0.0, weight_stddev, -2 * weight_stddev, 2 * weight_stddev
            )
    return model


def keras_model(
    input_dim: int,
    hidden: int,
    input_dropout: float,
    dropout: float,
    classes: int,
    weight_stddev: float,
):
    import keras
    from keras import layers

    def kernel():  # Keras' TruncatedNormal redraws beyond two standard deviations, as TF 1 did
        return keras.initializers.TruncatedNormal(mean=0.0, stddev=weight_stddev)

    return keras.Sequential(
        [
            keras.Input(shape=(input_dim,)),
            layers.Dropout(input_dropout),
            layers.Dense(hidden, activation="relu", kernel_initializer=kernel(), name="fc1"),
            layers.Dropout(dropout),
            layers.Dense(hidden, activation="relu", kernel_initializer=kernel(), name="fc2"),
            layers.Dropout(dropout),
            layers.Dense(
                classes, activation="softmax", kernel_initializer=kernel(), name="predictions"
            ),
        ],
        name="tl_mlp",
    )
