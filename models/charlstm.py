"""Nietzsche character LSTM (Keras example lstm_text_generation.py, 2017 benchmark).

One-hot windows of 40 characters (40 x chars), LSTM 128, Dense chars, softmax; RMSprop lr 0.01;
batch 128. chars is the corpus' character count (57 for lowercased nietzsche.txt), from the data;
parameters: 4 * 128 * (chars + 128 + 1) + 128 * chars + chars (102,585 for 57).

The recurrent activation is the logistic sigmoid in both frameworks (see models/bilstm.py).
"""

from __future__ import annotations

OUTPUT = "softmax"
LAYERS = {"lstm": "lstm", "dense": "dense"}


def flop_products(maxlen: int, chars: int, units: int, **_) -> list:
    """Per sample matrix products (models/flops.py rules): the LSTM reads one-hot data, so
    its input product needs no input gradient (its recurrent one does)."""
    from models import flops

    return [
        *flops.lstm_layer("lstm", maxlen, chars, units, input_grad=False),
        *flops.dense_layer("dense", units, chars),
    ]


def forward_flops(**arch) -> int:
    """Per sample, forward (models/flops.py rules)."""
    from models import flops

    return flops.forward(flop_products(**arch))


def torch_model(maxlen: int, chars: int, units: int, recurrent_activation: str):
    import torch
    from torch import nn

    from models.torch_init import keras_init_

    if recurrent_activation != "sigmoid":
        raise ValueError("torch's nn.LSTM gates with the sigmoid only")

    class CharLSTM(nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = nn.LSTM(chars, units, batch_first=True)
            self.dense = nn.Linear(units, chars)  # logits: the softmax is in the loss

        def forward(self, x):
            # The one-hot windows arrive as bool, as the example stores them; Keras casts its
            # input to float32 and so does this, one batch at a time (128 x 40 x chars).
            _, (h_n, _) = self.lstm(x.to(torch.float32))
            return self.dense(h_n[-1])

    return keras_init_(CharLSTM())


def keras_model(maxlen: int, chars: int, units: int, recurrent_activation: str):
    import keras
    from keras import layers

    return keras.Sequential(
        [
            keras.Input(shape=(maxlen, chars)),  # float32: bool one-hot batches are cast
            layers.LSTM(units, recurrent_activation=recurrent_activation, name="lstm"),
            layers.Dense(chars, name="dense"),
            layers.Activation("softmax"),
        ],
        name="charlstm",
    )
