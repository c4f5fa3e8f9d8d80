"""IMDb fastText (Keras example imdb_fasttext.py with ngram_range=2, 2017 benchmark).

Embedding(max_features, 50) over 400 word and bigram ids ('pre' padded, no masking),
GlobalAveragePooling1D, Dense 1 sigmoid; Adam; batch 32. max_features (20,000 word ids plus
one id per distinct bigram of the training set) comes from the data, and with it the parameter
count: 50 * max_features + 51.
"""

from __future__ import annotations

OUTPUT = "sigmoid"
LAYERS = {"embedding": "embedding", "predictions": "dense"}


def flop_products(embedding_dims: int, **_) -> list:
    """Per sample matrix products (models/flops.py rules): only the Dense; the lookups and
    their mean are 0 FLOPs, so fastText's GFLOP/s says little about its speed."""
    from models import flops

    return flops.dense_layer("predictions", embedding_dims, 1)


def forward_flops(**arch) -> int:
    """Per sample, forward (models/flops.py rules)."""
    from models import flops

    return flops.forward(flop_products(**arch))


def torch_model(max_features: int, embedding_dims: int, maxlen: int):
    from torch import nn

    from models.torch_init import keras_init_

    class FastText(nn.Module):
        def __init__(self):
            super().__init__()
            self.embedding = nn.Embedding(max_features, embedding_dims)
            self.predictions = nn.Linear(embedding_dims, 1)  # logit: the sigmoid is in the loss

        def forward(self, x):
            # GlobalAveragePooling1D without a mask: the mean over all `maxlen` positions,
            # padding (id 0) included, as in the Keras example.
            return self.predictions(self.embedding(x).mean(dim=1))

    return keras_init_(FastText())


def keras_model(max_features: int, embedding_dims: int, maxlen: int):
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
            layers.GlobalAveragePooling1D(),
            layers.Dense(1, activation="sigmoid", name="predictions"),
        ],
        name="fasttext",
    )
