"""Training FLOPs counted per matrix product, checked against torch's own count of a forward and
backward pass (FlopCounterMode) for every model, the LSTM models included."""

from __future__ import annotations

import pytest

import models
from models import flops
from twinbench.config.spec import group_choices

BATCH = 2
DATA_SIZES = {"chars": 57, "max_features": 1000}  # what the data fills in (conf: null)


def _inputs(name: str, arch: dict):
    import torch

    if "input_dim" in arch:  # flat vectors (mlp, tl_mlp)
        return torch.randn(BATCH, arch["input_dim"])
    if "side" in arch:  # NHWC images, as the data arrives (cnn, cifar10_cnn)
        return torch.randn(BATCH, arch["side"], arch["side"], arch["channels"])
    if name == "charlstm":  # one-hot windows, stored as bool
        return torch.zeros(BATCH, arch["maxlen"], arch["chars"], dtype=torch.bool)
    vocabulary = arch.get("max_features") or arch["chars"]  # word or character ids
    return torch.randint(0, vocabulary, (BATCH, arch["maxlen"]))


MODELS = group_choices("model")  # every workload in conf/model/: a new one is checked too


@pytest.mark.parametrize("name", MODELS)
def test_counted_training_flops_equal_torchs_forward_and_backward_count(name, compose):
    import torch
    from torch.utils.flop_counter import FlopCounterMode

    from frameworks.torch_native.backend import Objective

    mc = compose(f"model={name}")["model"]
    arch = {k: DATA_SIZES.get(k, v) if v is None else v for k, v in mc["arch"].items()}
    if "attention" in arch:
        # torch's CPU flash kernel (fused attention without a mask) is invisible to
        # FlopCounterMode; the explicit kernel computes the same products as matmuls it counts.
        arch["attention"] = "explicit"
    module = models.get(name)
    net = module.torch_model(**arch)
    objective = Objective.for_model(mc)
    x = _inputs(name, arch)
    # oneDNN's fused LSTM kernel hides its products from FlopCounterMode; the reference path
    # runs the same math as aten matrix products it can count.
    with torch.backends.mkldnn.flags(enabled=False), FlopCounterMode(display=False) as counter:
        logits = net(x)
        # a label per output row: one per sample, or one per position (gpt)
        y = torch.zeros(logits.shape[:-1] if name == "gpt" else (BATCH,), dtype=torch.int64)
        objective(logits, y).backward()
    assert flops.train_per_sample(module.flop_products(**arch)) * BATCH == (
        counter.get_total_flops()
    )


def test_lstm_counts_four_gates_and_no_recurrent_input_gradient_at_the_first_step():
    T, n_in, units = 5, 3, 4
    x_product, recurrent = flops.lstm_layer("lstm", T, n_in, units, input_grad=False)
    assert x_product.forward == T * 2 * n_in * 4 * units and x_product.input_grad == 0
    assert recurrent.forward == recurrent.weight_grad == T * 2 * units * 4 * units
    assert recurrent.input_grad == (T - 1) * 2 * units * 4 * units
    assert x_product.forward + recurrent.forward == flops.lstm(T, n_in, units)


def test_a_first_layer_reading_data_has_no_input_gradient():
    (fc1, fc2, out) = models.get("mlp").flop_products(input_dim=784, hidden=512, classes=10)
    assert fc1.input_grad == 0 and fc1.train == 2 * fc1.forward
    assert fc2.train == 3 * fc2.forward and out.train == 3 * out.forward
    # the old 3x-forward rule over-counts mlp by a quarter
    per_sample = flops.train_per_sample([fc1, fc2, out])
    assert 3 * flops.forward([fc1, fc2, out]) / per_sample == pytest.approx(1.25, abs=0.001)
