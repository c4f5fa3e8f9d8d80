"""Character-embedding text generator with two heads (the 2017 benchmark's Keras text generator).

40-character windows of char ids -> Embedding(chars, 300) -> LSTM 128. The aux head reads the
LSTM: Dense chars softmax. The main head: Dense 512 (no bias), BatchNormalization, relu,
Dense 256 (no bias), BatchNormalization, relu, Dense chars softmax. Both heads predict the next
character; losses weighted main 1, aux 0.2. Adam lr 1e-3 with Keras 2's per-step decay 1e-4;
batch 128. Parameters, BatchNorm's moving statistics included as Keras counts them:
686 * chars + 419,328 (458,430 for 57 characters).

BatchNormalization is mapped value for value: Keras' momentum 0.99 (weight of the old moving
average) is torch's momentum 0.01 (weight of the new batch), epsilon 1e-3 in both (torch's
default is 1e-5). One difference stays: torch updates running_var with the unbiased batch
variance (times n / (n - 1)), Keras with the biased one; the normalisation itself uses the
biased variance in both. twinbench/parity/ bounds the resulting moving-variance difference.
The recurrent activation is the logistic sigmoid in both frameworks (see models/bilstm.py).
"""

from __future__ import annotations

OUTPUT = "softmax"
PRIMARY_OUTPUT = "main"  # the head whose accuracy is reported and whose output `predict` gives
LAYERS = {
    "embedding": "embedding",
    "lstm": "lstm",
    "aux": "dense",
    "dense_1": "dense",
    "bn_1": "batchnorm",
    "dense_2": "dense",
    "bn_2": "batchnorm",
    "main": "dense",
}


def flop_products(
    maxlen: int, chars: int, embedding_dims: int, units: int, hidden1: int, hidden2: int, **_
) -> list:
    """Per sample matrix products (models/flops.py rules): the LSTM reads the trained
    embedding, so its input gradient counts."""
    from models import flops

    return [
        *flops.lstm_layer("lstm", maxlen, embedding_dims, units),
        *flops.dense_layer("aux", units, chars),
        *flops.dense_layer("dense_1", units, hidden1),
        *flops.dense_layer("dense_2", hidden1, hidden2),
        *flops.dense_layer("main", hidden2, chars),
    ]


def forward_flops(**arch) -> int:
    """Per sample, forward (models/flops.py rules)."""
    from models import flops

    return flops.forward(flop_products(**arch))


def torch_model(
    maxlen: int,
    chars: int,
    embedding_dims: int,
    units: int,
    recurrent_activation: str,
    hidden1: int,
    hidden2: int,
    bn_momentum: float,
    bn_epsilon: float,
):
    from torch import nn

    from models.torch_init import keras_init_

    if recurrent_activation != "sigmoid":
        raise ValueError("torch's nn.LSTM gates with the sigmoid only")

    def batchnorm(n: int) -> nn.BatchNorm1d:
        # torch's momentum weighs the new batch, Keras' the old average: 1 - 0.99 = 0.01.
        return nn.BatchNorm1d(n, eps=bn_epsilon, momentum=1.0 - bn_momentum)

    class TextGen(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(chars, embedding_dims)
            self.lstm = nn.LSTM(embedding_dims, units, batch_first=True)
            self.aux = nn.Linear(units, chars)
            self.dense_1 = nn.Linear(units, hidden1, bias=False)
            self.bn_1 = batchnorm(hidden1)
            self.dense_2 = nn.Linear(hidden1, hidden2, bias=False)
            self.bn_2 = batchnorm(hidden2)
            self.main = nn.Linear(hidden2, chars)
            self.relu = nn.ReLU()

        def forward(self, x):
            _, (h_n, _) = self.lstm(self.embedding(x))
            h = h_n[-1]
            z = self.relu(self.bn_1(self.dense_1(h)))
            z = self.relu(self.bn_2(self.dense_2(z)))
            return {"main": self.main(z), "aux": self.aux(h)}  # logits of both heads

    return keras_init_(TextGen())


def keras_model(
    maxlen: int,
    chars: int,
    embedding_dims: int,
    units: int,
    recurrent_activation: str,
    hidden1: int,
    hidden2: int,
    bn_momentum: float,
    bn_epsilon: float,
):
    import keras
    from keras import layers

    def batchnorm(name: str) -> layers.BatchNormalization:
        return layers.BatchNormalization(momentum=bn_momentum, epsilon=bn_epsilon, name=name)

    inputs = keras.Input(shape=(maxlen,), dtype="int32")
    x = layers.Embedding(chars, embedding_dims, embeddings_initializer="uniform", name="embedding")(
        inputs
    )
    rnn = layers.LSTM(units, recurrent_activation=recurrent_activation, name="lstm")(x)
    aux = layers.Dense(chars, activation="softmax", name="aux")(rnn)
    z = layers.Dense(hidden1, use_bias=False, name="dense_1")(rnn)
    z = layers.Activation("relu")(batchnorm("bn_1")(z))
    z = layers.Dense(hidden2, use_bias=False, name="dense_2")(z)
    z = layers.Activation("relu")(batchnorm("bn_2")(z))
    main = layers.Dense(chars, activation="softmax", name="main")(z)
    return keras.Model(inputs, {"main": main, "aux": aux}, name="textgen")
