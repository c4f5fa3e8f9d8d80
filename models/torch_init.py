"""Keras' default initializers applied to torch layers, so untransferred models start alike.

torch's defaults differ (kaiming-uniform kernels, uniform biases, N(0,1) embeddings); Keras uses
glorot-uniform kernels, zero biases, orthogonal recurrent kernels, a unit forget-gate bias and
uniform(-0.05, 0.05) embeddings. Fan-in/fan-out match: torch computes them for (out, in[, kh, kw])
exactly as Keras does for (in, out) and (kh, kw, in, out).
"""

from __future__ import annotations

import torch
from torch import nn


@torch.no_grad()
def keras_init_(module: nn.Module) -> nn.Module:
    for layer in module.modules():
        if isinstance(layer, (nn.Linear, nn.Conv2d)):
            nn.init.xavier_uniform_(layer.weight)
            if layer.bias is not None:
                nn.init.zeros_(layer.bias)
        elif isinstance(layer, nn.Embedding):
            nn.init.uniform_(layer.weight, -0.05, 0.05)
        elif isinstance(layer, nn.LSTM):
            for name, param in layer.named_parameters():
                if name.startswith("weight_ih"):
                    # Keras draws one glorot-uniform (in, 4*units) kernel for all four gates.
                    nn.init.xavier_uniform_(param)
                elif name.startswith("weight_hh"):
                    nn.init.orthogonal_(param)
                elif name.startswith("bias_ih"):
                    nn.init.zeros_(param)
                    units = layer.hidden_size
                    param[units : 2 * units] = 1.0  # gate order i, f, g, o: f is the 2nd block
                elif name.startswith("bias_hh"):
                    # Keras has a single bias; it lives in bias_ih. bias_hh stays zero and
                    # frozen: two trainable copies of one bias would each take an optimizer
                    # step (under Adam or RMSprop their sum moves twice as fast) and would
                    # count 4 * units parameters Keras does not have.
                    nn.init.zeros_(param)
                    param.requires_grad_(False)
        elif isinstance(layer, nn.BatchNorm1d | nn.BatchNorm2d):
            nn.init.ones_(layer.weight)
            nn.init.zeros_(layer.bias)
    return module
