"""torch's side of parity's stochastic probes (twinbench/parity/draws.py): each dropout layer in
training mode, and the training-time augmentation, exactly as the torch loop applies them; and
what the loop's validation pass hands the model (it must be the test batch, unaugmented)."""

from __future__ import annotations

from typing import Any

import numpy as np
import torch
from torch import nn

from frameworks.dropout_effect import site_figures
from frameworks.torch_native import augment as torch_augment
from frameworks.torch_native import evaluate as torch_evaluate
from frameworks.torch_native.objective import Objective


@torch.no_grad()
def dropout_probe(model: nn.Module, units: int) -> list[tuple[str, float, np.ndarray]]:
    """Every dropout module (nested ones included, definition order) on `units` ones."""
    ones = torch.ones(1, units)
    found = []
    for name, layer in model.named_modules():
        if isinstance(layer, nn.modules.dropout._DropoutNd):
            was_training = layer.training
            layer.train()
            out = layer(ones)
            layer.train(was_training)
            found.append((name, float(layer.p), out.numpy().reshape(-1)))
    return found


def augment_probe(model_cfg: dict[str, Any], x: np.ndarray, seed: int) -> np.ndarray | None:
    """`x` through the very builder the torch loop applies to its training batches."""
    augment = torch_augment.make_augment(model_cfg.get("augment"), seed, "cpu")
    return None if augment is None else augment(torch.from_numpy(x)).numpy()


class _Recorder(nn.Module):
    """Stands in for the network: keeps each batch it is given, answers zero logits."""

    def __init__(self, classes: int):
        super().__init__()
        self.classes, self.seen = classes, []

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        self.seen.append(x.detach().cpu().numpy().copy())
        return torch.zeros(len(x), self.classes)


def validation_probe(model_cfg: dict[str, Any], x: np.ndarray, precision: str) -> np.ndarray:
    """`x` as the torch loop's validation pass (torch_native/evaluate.py, the function train()
    calls) hands it to the model, batch by batch: it should come back unchanged."""
    classes = int(model_cfg["arch"]["classes"])
    recorder, bs = _Recorder(classes), min(len(x), 500)
    y = torch.zeros(len(x), dtype=torch.int64)
    torch_evaluate.evaluate(
        recorder, Objective.for_model(model_cfg), torch.from_numpy(x), y, bs, len(x) // bs,
        precision,
    )  # fmt: skip
    return np.concatenate(recorder.seen)


@torch.no_grad()
def attention_dropout_probe(
    model: nn.Module, tokens: int, draws: int, seed: int
) -> list[tuple[str, float, dict[str, float]]]:
    """Every attention module's dropout judged by its effect, on the kernel its forward runs
    (F.scaled_dot_product_attention's dropout_p when fused, the Dropout module when explicit):
    the attention result (the output projection's input) over `draws` training-mode calls on one
    seeded input, against an explicit reference at the module's declared rate.

    With probabilities A and values v, dropout at rate p makes each head's result
    sum_j (m_j / (1 - p)) A_ij v_jd with m_j ~ Bernoulli(1 - p): its mean is the inference
    result and its variance p / (1 - p) * sum_j A_ij^2 v_jd^2. Returned per module: its name, its
    declared rate, the observed variance summed over the result's elements against that expected
    sum ("variance_ratio", 1 when the kernel drops at the declared rate; 0 when it drops nothing;
    p' (1 - p) / (p (1 - p')) when it drops at another rate p')."""
    found = []
    for name, layer in model.named_modules():
        if not (hasattr(layer, "attention_dropout") and hasattr(layer, "attention_output")):
            continue
        rate = float(layer.attention_dropout.p)
        width = layer.query.in_features
        heads, head_dim = layer.shape
        x = torch.randn(1, tokens, width, generator=torch.Generator().manual_seed(seed))
        seen: list[torch.Tensor] = []
        hook = layer.attention_output.register_forward_pre_hook(
            lambda _m, args, seen=seen: seen.append(args[0].detach().clone())
        )
        was_training = layer.training
        try:
            layer.train()
            layer(x.expand(draws, -1, -1))  # copies in one batch: a dropout mask each
        finally:
            layer.train(was_training)
            hook.remove()
        drawn = seen[0].double()
        # The explicit reference: the module's own projections, softmax and A V, written out.
        q, k, v = (
            p(x).view(1, tokens, heads, head_dim).transpose(1, 2).double()
            for p in (layer.query, layer.key, layer.value)
        )
        scores = (q @ k.transpose(-2, -1)) * layer.scale
        if layer.causal:
            mask = torch.ones(tokens, tokens, dtype=torch.bool).tril()
            scores = scores.masked_fill(~mask, float("-inf"))
        probs = scores.softmax(dim=-1)
        keep = 1.0 - rate
        expected = (rate / keep) * ((probs**2) @ (v**2))
        expected = expected.transpose(1, 2).reshape(1, tokens, -1)
        observed = drawn.var(dim=0, unbiased=True)
        total = float(expected.sum())
        found.append(
            (
                name,
                rate,
                {
                    "variance_ratio": float(observed.sum()) / total if total > 0 else 0.0,
                    "observed_variance": float(observed.sum()),
                    "expected_variance": total,
                },
            )
        )
    return found


@torch.no_grad()
def dropout_in_forward(model: nn.Module, x: np.ndarray) -> dict[str, dict[str, float]]:
    """Each dropout module with a rate in one training-mode forward on `x`, by its effect: its
    rate, how often it ran, how many nonzero values it was handed and how many of those it
    zeroed; then how much it alone moves the model's output (`output_change`). A module the
    forward never calls, calls in a way that drops nothing, or whose output it discards, holds
    a rate no run applies, which the layer probe (it calls each module itself) cannot see. An
    attention module's own dropout is left out: its fused kernel takes the rate without
    calling it, and attention_dropout_probe judges it."""
    counted = {
        name: layer
        for name, layer in model.named_modules()
        if isinstance(layer, nn.modules.dropout._DropoutNd)
        and layer.p > 0
        and not name.endswith("attention_dropout")
    }
    found = {
        name: {"rate": float(layer.p), "calls": 0, "inputs": 0, "zeroed": 0}
        for name, layer in counted.items()
    }

    def record(name: str, given: torch.Tensor, out: torch.Tensor) -> None:
        nonzero = given != 0
        found[name]["calls"] += 1
        found[name]["inputs"] += int(nonzero.sum())
        found[name]["zeroed"] += int((nonzero & (out == 0)).sum())

    hooks = [
        layer.register_forward_hook(
            lambda _m, args, out, name=name: record(name, args[0].detach(), out.detach())
        )
        for name, layer in counted.items()
    ]
    was_training = model.training
    try:
        model.train()
        with torch.no_grad():
            model(torch.from_numpy(x))
    finally:
        model.train(was_training)
        for hook in hooks:
            hook.remove()
    for name, layer in counted.items():
        found[name].update(_output_change(model, layer, x))
    return found


@torch.no_grad()
def _output_change(model: nn.Module, site: nn.Module, x: np.ndarray) -> dict[str, float]:
    """`site` measured alone (frameworks/dropout_effect.py): the model in inference mode but for
    this one dropout, on two copies of `x` in one batch (each copy draws its own mask); how much
    it moves the output, and what it is handed."""
    handed: list[np.ndarray] = []
    hook = site.register_forward_hook(
        lambda _m, args, _out: handed.append(args[0].detach().double().numpy())
    )
    was_training = model.training
    try:
        model.eval()
        site.train()
        out = model(torch.from_numpy(np.concatenate([x, x]))).double().numpy()
    finally:
        model.train(was_training)
        hook.remove()
    return site_figures(out, handed)
