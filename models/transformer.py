"""What both transformer halves (models/gpt.py, models/imdb_transformer.py) check alike.

`attention` picks the attention kernel, recorded in every run's result through the arch:
"fused" is the framework's one-call scaled dot-product attention (torch's
scaled_dot_product_attention, Keras' ops.dot_product_attention inside MultiHeadAttention),
"explicit" the three steps written out: scores Q K^T * scale (masked), softmax, A V. Both compute
the same function; they differ in speed and in rounding only.
"""

from __future__ import annotations

ATTENTION = ("fused", "explicit")

# The per-layer profile's four transformer groups (frameworks/profiling.py records them; the
# report's per-layer table sums them). A layer's kind decides: a MultiHeadAttention layer holds
# the Q, K, V and output projections and the attention product, in torch (SelfAttention) and in
# Keras alike; "head" marks the layers after the blocks (a classifier, a language-model head).
ATTENTION_GROUP, MLP, LAYERNORM, EMBEDDING_HEAD = "attention", "MLP", "LayerNorm", "embedding/head"
KIND_GROUPS = {
    "mha": ATTENTION_GROUP,
    "dense": MLP,
    "activation": MLP,
    "layernorm": LAYERNORM,
    "embedding": EMBEDDING_HEAD,
    "head": EMBEDDING_HEAD,
}


def layer_groups(kinds: dict[str, str]) -> dict[str, str]:
    """{layer name: group} for every layer whose kind (models/<name>.py LAYERS' values, or
    "head" / "activation") belongs to one of the four groups."""
    return {name: KIND_GROUPS[kind] for name, kind in kinds.items() if kind in KIND_GROUPS}


def check(width: int, heads: int, attention: str) -> None:
    """Refuses a size both halves would build differently or not at all."""
    if heads < 1 or width % heads:
        raise ValueError(f"arch.heads={heads} does not divide arch.width={width}")
    if attention not in ATTENTION:
        raise ValueError(f"arch.attention must be one of {ATTENTION}, got {attention!r}")
