"""IMDb transformer classifier (keras-io examples/nlp/text_classification_with_transformer.py).

Token embedding (20000 x 32) plus a learned position embedding (200 x 32), one post-norm
transformer block (multi-head self-attention, 2 heads of key_dim 32, dropout, residual,
LayerNorm eps 1e-6; Dense 32 relu, Dense 32, dropout, residual, LayerNorm eps 1e-6), global
average pooling over the 200 positions, Dropout 0.1, Dense 20 relu, Dropout 0.1, Dense 2
softmax; Adam, batch 32, 2 epochs. 657,758 parameters.

As in the example, key_dim is the embedding width (32), not width / heads: the two heads
project to 64 dimensions together. No padding mask (the example has none), no causal mask.
"""

from __future__ import annotations

from models import transformer

OUTPUT = "softmax"
LAYERS = {
    "token_emb": "embedding",
    "pos_emb": "embedding",
    "att": "mha",
    "layernorm1": "layernorm",
    "ffn_1": "dense",
    "ffn_2": "dense",
    "layernorm2": "layernorm",
    "hidden": "dense",
    "predictions": "dense",
}
# The per-layer profile's groups: the classifier after pooling (hidden, predictions) is the
# head, grouped with the embeddings; ffn_1 and ffn_2 are the block's MLP.
LAYER_GROUPS = transformer.layer_groups(LAYERS | {"hidden": "head", "predictions": "head"})
# Compared layer by layer on the probe batch (twinbench/parity/layers.py): the layers whose
# output is the same tensor in both halves. Not ffn_1 or hidden: Keras' Dense applies its relu
# inside the layer, torch's Linear leaves it to the forward.
PARITY_LAYERS = ["att", "layernorm1", "ffn_2", "layernorm2"]


def flop_products(
    maxlen: int, width: int, heads: int, key_dim: int, ff_dim: int, hidden: int, classes: int, **_
) -> list:
    """Per sample matrix products (models/flops.py rules): embeddings are lookups, pooling a
    sum; every product after the trained embedding has its input gradient."""
    from models import flops

    t, inner = maxlen, heads * key_dim
    products = []
    for p in ("query", "key", "value"):
        products += flops.token_dense_layer(f"att.{p}", t, width, inner)
    return [
        *products,
        *flops.attention_layer("att", t, heads, key_dim),
        *flops.token_dense_layer("att.attention_output", t, inner, width),
        *flops.token_dense_layer("ffn_1", t, width, ff_dim),
        *flops.token_dense_layer("ffn_2", t, ff_dim, width),
        *flops.dense_layer("hidden", width, hidden),
        *flops.dense_layer("predictions", hidden, classes),
    ]


def forward_flops(**arch) -> int:
    """Per sample, forward (models/flops.py rules)."""
    from models import flops

    return flops.forward(flop_products(**arch))


def torch_model(
    max_features: int,
    maxlen: int,
    width: int,
    heads: int,
    key_dim: int,
    ff_dim: int,
    hidden: int,
    classes: int,
    dropout: float,
    ln_epsilon: float,
    attention: str,
):
    from torch import nn

    from models import torch_transformer
    from models.torch_init import keras_init_

    transformer.check(heads * key_dim, heads, attention)

    class IMDbTransformer(nn.Module):
        def __init__(self):
            super().__init__()
            self.token_emb = nn.Embedding(max_features, width)
            self.pos_emb = nn.Embedding(maxlen, width)
            self.att = torch_transformer.SelfAttention(
                width,
                heads,
                key_dim,
                0.0,
                causal=False,
                kernel=attention,  # no attention dropout
            )
            self.dropout1 = nn.Dropout(dropout)
            self.layernorm1 = nn.LayerNorm(width, eps=ln_epsilon)
            self.ffn_1 = nn.Linear(width, ff_dim)
            self.ffn_2 = nn.Linear(ff_dim, width)
            self.dropout2 = nn.Dropout(dropout)
            self.layernorm2 = nn.LayerNorm(width, eps=ln_epsilon)
            self.dropout3 = nn.Dropout(dropout)
            self.hidden = nn.Linear(width, hidden)
            self.dropout4 = nn.Dropout(dropout)
            self.predictions = nn.Linear(hidden, classes)  # logits: the softmax is in the loss

        def forward(self, x):
            h = self.token_emb(x) + self.pos_emb.weight[: x.shape[1]]
            h = self.layernorm1(h + self.dropout1(self.att(h)))
            ffn = self.ffn_2(self.ffn_1(h).relu())
            h = self.layernorm2(h + self.dropout2(ffn))
            h = self.dropout3(h.mean(dim=1))  # GlobalAveragePooling1D, no mask
            return self.predictions(self.dropout4(self.hidden(h).relu()))

    # keras_init_'s Linear fans are Keras 3's einsum fans for the attention kernels (models/gpt.py)
    return keras_init_(IMDbTransformer())


def keras_model(
    max_features: int,
    maxlen: int,
    width: int,
    heads: int,
    key_dim: int,
    ff_dim: int,
    hidden: int,
    classes: int,
    dropout: float,
    ln_epsilon: float,
    attention: str,
):
    import keras
    from keras import layers

    from models import keras_transformer

    transformer.check(heads * key_dim, heads, attention)
    ids = keras.Input(shape=(maxlen,), dtype="int32")
    h = layers.Embedding(max_features, width, embeddings_initializer="uniform", name="token_emb")(
        ids
    )
    h = keras_transformer.PositionEmbedding(maxlen, width, name="pos_emb")(h)
    a = keras_transformer.attention_layer(heads, key_dim, 0.0, attention, name="att")(h, h)
    h = layers.LayerNormalization(epsilon=ln_epsilon, name="layernorm1")(
        layers.Add()([h, layers.Dropout(dropout)(a)])
    )
    f = layers.Dense(ff_dim, activation="relu", name="ffn_1")(h)
    f = layers.Dense(width, name="ffn_2")(f)
    h = layers.LayerNormalization(epsilon=ln_epsilon, name="layernorm2")(
        layers.Add()([h, layers.Dropout(dropout)(f)])
    )
    h = layers.Dropout(dropout)(layers.GlobalAveragePooling1D()(h))
    h = layers.Dropout(dropout)(layers.Dense(hidden, activation="relu", name="hidden")(h))
    out = layers.Dense(classes, activation="softmax", name="predictions")(h)
    return keras.Model(ids, out, name="imdb_transformer")


def check_arch(heads: int, key_dim: int, attention: str, **_) -> None:
    """Refused before a run (twinbench/config/model_values.py): see models/transformer.py. The
    heads' width is heads * key_dim here, so any head count fits."""
    transformer.check(heads * key_dim, heads, attention)
