"""IMDb bidirectional LSTM (Keras example imdb_bidirectional_lstm.py, 2017 benchmark).

Embedding(20000, 128) over 100 word ids ('pre' padded, no masking), Bidirectional(LSTM 64),
Dropout 0.5, Dense 1 sigmoid; Adam; batch 32. 2,658,945 parameters.

The recurrent activation is the logistic sigmoid in both frameworks: torch's nn.LSTM has no
other, and it is Keras 3's default; Keras 2.0, which the 2017 benchmark ran, defaulted to
hard_sigmoid (cheaper elementwise work, the same matrix products).
"""

from __future__ import annotations

OUTPUT = "sigmoid"
LAYERS = {"embedding": "embedding", "bidirectional": "bilstm", "predictions": "dense"}


def flop_products(maxlen: int, embedding_dims: int, units: int, **_) -> list:
    """Per sample matrix products (models/flops.py rules): both LSTM directions read the
    trained embedding, so their input gradient counts; the lookup itself is 0 FLOPs."""
    from models import flops

    return [
        *flops.lstm_layer("bidirectional.forward", maxlen, embedding_dims, units),
        *flops.lstm_layer("bidirectional.backward", maxlen, embedding_dims, units),
        *flops.dense_layer("predictions", 2 * units, 1),
    ]


def forward_flops(**arch) -> int:
    """Per sample, forward (models/flops.py rules)."""
    from models import flops

    return flops.forward(flop_products(**arch))


def torch_model(
    max_features: int,
    maxlen: int,
    embedding_dims: int,
    units: int,
    recurrent_activation: str,
    dropout: float,
):
    import torch
    from torch import nn

    from models.torch_init import keras_init_

    if recurrent_activation != "sigmoid":
        raise ValueError("torch's nn.LSTM gates with the sigmoid only")

    class BiLSTM(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(max_features, embedding_dims)
            self.bidirectional = nn.LSTM(
                embedding_dims, units, batch_first=True, bidirectional=True
            )
            self.dropout = nn.Dropout(dropout)
            self.predictions = nn.Linear(2 * units, 1)  # logit: the sigmoid is in the loss

        def forward(self, x):
            _, (h_n, _) = self.bidirectional(self.embedding(x))
            # h_n[0]: the forward direction after the last step; h_n[1]: the backward direction
            # after reading back to the first step. Keras' Bidirectional concatenates these
            # two; output[:, -1] would give the backward direction after one step only.
            h = torch.cat([h_n[0], h_n[1]], dim=1)
            return self.predictions(self.dropout(h))

    return keras_init_(BiLSTM())


def keras_model(
    max_features: int,
    maxlen: int,
    embedding_dims: int,
    units: int,
    recurrent_activation: str,
    dropout: float,
):
    import keras
    from keras import layers

    return keras.Sequential(
        [
            keras.Input(shape=(maxlen,), dtype="int32"),
            layers.Embedding(
                max_features,
                embedding_dims,
                embeddings_initializer="uniform",
                mask_zero=False,
                name="embedding",
            ),
            layers.Bidirectional(
                # Named "lstm" so Keras 3 names the two copies forward_lstm and backward_lstm
                # (the canonical weight keys of the "bilstm" kind in
                # frameworks/torch_native/weight_layout.py).
                layers.LSTM(units, recurrent_activation=recurrent_activation, name="lstm"),
                merge_mode="concat",
                name="bidirectional",
            ),
            layers.Dropout(dropout),
            layers.Dense(1, activation="sigmoid", name="predictions"),
        ],
        name="bilstm",
    )
