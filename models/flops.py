"""Floating-point operations of one training step, counted per matrix product by stated rules.

Counting rules (documented in docs/usage/measurement.md):
- a multiply-add is 2 FLOPs; only matrix products are counted: Dense, Conv2D and the LSTM's
  input and recurrent products. Activations, gates' elementwise math, pooling, dropout,
  normalisation, bias additions and the loss are elementwise and left out, as torch's
  FlopCounterMode leaves them out;
- an embedding lookup is a gather and its gradient a scatter-add: 0 FLOPs; a global average
  pooling is a sum: 0 FLOPs (fastText's step is therefore almost all lookups and additions,
  which its GFLOP/s cannot show);
- every product Y = X W costs F forward, and F again in backward for the weight gradient;
  the input gradient (another F) only where the input needs a gradient: not for a first layer
  reading the data (fc1, conv1, the one-hot LSTM of charlstm), but for a layer after an
  embedding, whose table is trained;
- an LSTM runs four gates' products per timestep: input x_t W (T steps) and recurrent
  h_{t-1} U (T steps); the recurrent input gradient is needed for T - 1 steps (the initial
  state is a constant zero), its weight gradient for all T;
- a transformer's token-wise Dense (projections, MLP, head) is a Dense per position: T times
  dense(inputs, units) per sample; attention adds two products per head with no weights,
  Q K^T (T x hd x T) and A V (T x T x hd), counted over the full T x T scores whether or not a
  causal mask discards half (the kernels and FlopCounterMode compute all of them); their
  backward needs the gradient of both operands, recorded as input_grad (the first) and
  weight_grad (the second);
- per step = per sample x batch size.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass


@dataclass(frozen=True)
class Product:
    """One layer's matrix product, per sample: forward, input-gradient and weight-gradient FLOPs."""

    layer: str
    forward: int
    input_grad: int
    weight_grad: int
    # The product's shape, per sample, for timing it alone (twinbench/measure/speed_of_light.py):
    # "dense" (inputs, units), "conv2d" (out_h, out_w, in_ch, out_ch, k), "lstm.input"
    # (timesteps, inputs, units), "lstm.recurrent" (timesteps, units).
    op: str = ""
    dims: tuple[int, ...] = ()

    @property
    def train(self) -> int:
        return self.forward + self.input_grad + self.weight_grad


def dense(inputs: int, units: int) -> int:
    return 2 * inputs * units


def conv2d(out_h: int, out_w: int, in_ch: int, out_ch: int, kh: int, kw: int) -> int:
    return 2 * out_h * out_w * in_ch * out_ch * kh * kw


def lstm(timesteps: int, inputs: int, units: int) -> int:
    """Forward: four gates, each an input and a recurrent product, at every timestep."""
    return timesteps * 2 * 4 * units * (inputs + units)


def dense_layer(name: str, inputs: int, units: int, input_grad: bool = True) -> list[Product]:
    f = dense(inputs, units)
    return [Product(name, f, f if input_grad else 0, f, "dense", (inputs, units))]


def conv2d_layer(
    name: str,
    out_h: int,
    out_w: int,
    in_ch: int,
    out_ch: int,
    k: int,
    input_grad: bool = True,
) -> list[Product]:
    f = conv2d(out_h, out_w, in_ch, out_ch, k, k)
    dims = (out_h, out_w, in_ch, out_ch, k)
    return [Product(name, f, f if input_grad else 0, f, "conv2d", dims)]


def lstm_layer(
    name: str, timesteps: int, inputs: int, units: int, input_grad: bool = True
) -> list[Product]:
    """The input product x_t W and the recurrent product h_{t-1} U, four gates each."""
    step_in, step_rec = 2 * inputs * 4 * units, 2 * units * 4 * units
    x = timesteps * step_in
    return [
        Product(
            f"{name}.input", x, x if input_grad else 0, x, "lstm.input",
            (timesteps, inputs, units),
        ),
        Product(
            f"{name}.recurrent", timesteps * step_rec, (timesteps - 1) * step_rec,
            timesteps * step_rec, "lstm.recurrent", (timesteps, units),
        ),
    ]  # fmt: skip


def token_dense_layer(
    name: str, timesteps: int, inputs: int, units: int, input_grad: bool = True
) -> list[Product]:
    """A Dense applied at each of `timesteps` positions (a transformer's projections)."""
    f = timesteps * dense(inputs, units)
    return [Product(name, f, f if input_grad else 0, f, "tokens.dense", (timesteps, inputs, units))]


def attention_layer(name: str, timesteps: int, heads: int, head_dim: int) -> list[Product]:
    """Scaled dot-product attention's two products, every head: scores Q K^T and A V."""
    f = heads * 2 * timesteps * timesteps * head_dim
    dims = (timesteps, heads, head_dim)
    return [
        Product(f"{name}.scores", f, f, f, "attention.scores", dims),
        Product(f"{name}.values", f, f, f, "attention.values", dims),
    ]


def forward(products: Sequence[Product]) -> int:
    return sum(p.forward for p in products)


def train_per_sample(products: Sequence[Product]) -> int:
    return sum(p.train for p in products)


def train_step(forward_per_sample: int, batch_size: int) -> int:
    """Models without a product list: 3x the forward pass (an upper bound: it counts the first
    layer's input gradient, which no one computes)."""
    return 3 * forward_per_sample * batch_size
