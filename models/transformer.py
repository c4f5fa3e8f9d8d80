"""What both transformer halves (models/gpt.py, models/imdb_transformer.py) check alike.

`attention` picks the attention kernel, recorded in every run's result through the arch:
"fused" is the framework's one-call scaled dot-product attention (torch's
scaled_dot_product_attention, Keras' ops.dot_product_attention inside MultiHeadAttention),
"explicit" the three steps written out: scores Q K^T * scale (masked), softmax, A V. Both compute
the same function; they differ in speed and in rounding only.
"""

from __future__ import annotations

ATTENTION = ("fused", "explicit")


def check(width: int, heads: int, attention: str) -> None:
    """Refuses a size both halves would build differently or not at all."""
    if heads < 1 or width % heads:
        raise ValueError(f"arch.heads={heads} does not divide arch.width={width}")
    if attention not in ATTENTION:
        raise ValueError(f"arch.attention must be one of {ATTENTION}, got {attention!r}")
