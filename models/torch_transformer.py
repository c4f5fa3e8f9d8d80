"""torch building blocks for the transformer workloads, laid out as Keras' MultiHeadAttention.

Keras' MultiHeadAttention keeps one (width, heads, head_dim) kernel per projection and a
(heads, head_dim, width) output kernel; here each is an nn.Linear over the heads' concatenation
(torch's usual q, k, v projections), named as Keras' sublayers: query, key, value,
attention_output. frameworks/torch_native/weight_layout.py ('mha') reshapes between the two; the
head count travels as a buffer, since a (heads * head_dim, width) matrix does not say it.
"""

from __future__ import annotations

import math

import torch
from torch import nn
from torch.nn import functional as F


class SelfAttention(nn.Module):
    """Multi-head self-attention: Q, K, V projections, scaled dot-product attention, output
    projection. `kernel` "fused" runs F.scaled_dot_product_attention, "explicit" the same math
    as three steps (scores, softmax, A V); models/transformer.py."""

    def __init__(
        self, width: int, heads: int, head_dim: int, dropout: float, causal: bool, kernel: str
    ):
        super().__init__()
        inner = heads * head_dim
        self.query, self.key, self.value = (nn.Linear(width, inner) for _ in range(3))
        self.attention_output = nn.Linear(inner, width)
        self.register_buffer("heads", torch.tensor(heads))
        # A module, not a bare rate: Keras' MultiHeadAttention holds a Dropout layer on the
        # attention probabilities, and parity's dropout probe finds layers, not function calls.
        self.attention_dropout = nn.Dropout(dropout)
        self.shape, self.causal, self.kernel = (heads, head_dim), causal, kernel
        self.scale = 1.0 / math.sqrt(head_dim)  # Keras: 1 / sqrt(key_dim)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, _ = x.shape
        q, k, v = (
            p(x).view(b, t, *self.shape).transpose(1, 2) for p in (self.query, self.key, self.value)
        )
        drop = self.attention_dropout.p if self.training else 0.0
        if self.kernel == "fused":
            out = F.scaled_dot_product_attention(
                q, k, v, dropout_p=drop, is_causal=self.causal, scale=self.scale
            )
        else:
            scores = (q @ k.transpose(-2, -1)) * self.scale
            if self.causal:
                mask = torch.ones(t, t, dtype=torch.bool, device=x.device).tril()
                scores = scores.masked_fill(~mask, float("-inf"))
            out = self.attention_dropout(scores.softmax(dim=-1)) @ v
        return self.attention_output(out.transpose(1, 2).reshape(b, t, -1))
