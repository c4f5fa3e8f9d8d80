"""Keras building blocks for the transformer workloads (models/gpt.py, imdb_transformer.py)."""

from __future__ import annotations

import functools

import keras
from keras import layers, ops


class PositionEmbedding(layers.Layer):
    """Adds a learned (maxlen, width) table, row t to position t: nanoGPT's wpe and the Keras
    example's pos_emb. Its weight is named as an Embedding's, so it transfers as one."""

    def __init__(self, maxlen: int, width: int, **kwargs):
        super().__init__(**kwargs)
        self.embeddings = self.add_weight(
            shape=(maxlen, width), initializer="uniform", name="embeddings"
        )

    def call(self, x):
        return x + self.embeddings[: ops.shape(x)[1]]


class TiedHead(layers.Layer):
    """Logits against the token embedding's own table, x E^T: the head and the embedding are one
    matrix, trained and counted once. The table is reached through a function, so this layer
    tracks no weight of its own (tracking the Embedding would count it twice)."""

    def __init__(self, embedding: layers.Embedding, **kwargs):
        super().__init__(**kwargs)
        self.table = lambda: embedding.embeddings

    def call(self, x):
        return ops.matmul(x, ops.transpose(self.table()))


class ExplicitAttention(layers.MultiHeadAttention):
    """MultiHeadAttention with scores, softmax and A V written out always (Keras routes through
    ops.dot_product_attention whenever attention dropout is 0): the "explicit" kernel."""

    def _compute_attention(self, query, key, value, attention_mask=None, training=None,
                           return_attention_scores=False, use_causal_mask=False):  # fmt: skip
        if use_causal_mask and attention_mask is None:
            t, s = ops.shape(query)[1], ops.shape(key)[1]
            attention_mask = ops.tril(ops.ones((t, s), dtype="bool"))[None]
        return super()._compute_attention(
            query, key, value, attention_mask, training, return_attention_scores=True
        )


def attention_layer(heads: int, head_dim: int, dropout: float, kernel: str, name: str):
    """Keras' MultiHeadAttention (fused kernel where it takes it) or ExplicitAttention."""
    cls = ExplicitAttention if kernel == "explicit" else layers.MultiHeadAttention
    return cls(num_heads=heads, key_dim=head_dim, dropout=dropout, use_bias=True, name=name)


def gelu(approximate: bool):
    """GELU, exact (erf) unless `approximate` (the tanh form): an explicit choice per source."""
    return functools.partial(keras.activations.gelu, approximate=approximate)
