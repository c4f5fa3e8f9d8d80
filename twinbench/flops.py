"""Analytic floating-point operation counts, per sample, for the layers twinbench's models use.

Counting rules (documented in the README, "Measurement"):
- a multiply-add is 2 FLOPs; only the matrix work of Dense, Conv2D and LSTM layers is counted
  (activations, pooling, dropout, normalisation and the loss are elementwise and left out, as
  is usual for FLOP counts and as torch's FlopCounterMode does);
- an embedding lookup is a gather: 0 FLOPs;
- a training step costs 3x the forward pass: the backward pass computes one product for the
  gradient with respect to the inputs and one for the weights, each as large as the forward
  one (the first layer's input gradient is not needed, so this slightly over-counts);
- per step = per sample x batch size.
"""

from __future__ import annotations

TRAIN_TO_FORWARD = 3


def dense(inputs: int, units: int) -> int:
    return 2 * inputs * units


def conv2d(out_h: int, out_w: int, in_ch: int, out_ch: int, kh: int, kw: int) -> int:
    return 2 * out_h * out_w * in_ch * out_ch * kh * kw


def lstm(timesteps: int, inputs: int, units: int) -> int:
    """Four gates, each an input and a recurrent product, at every timestep."""
    return timesteps * 2 * 4 * units * (inputs + units)


def train_step(forward_per_sample: int, batch_size: int) -> int:
    return TRAIN_TO_FORWARD * forward_per_sample * batch_size
