"""Parity reports with figures like a real certificate's, for tests of what is done with them."""

from __future__ import annotations

from frameworks import layer_parity, tolerances
from models.catalog import model_config
from twinbench.parity.compare import ParityReport


def report(model: str, backend: str = "torch", passed: bool = True, **figures) -> ParityReport:
    """A (model, backend) pair's report whose figures pass this code's tolerances, unless
    `figures` (forward_max_abs_diff=..., training=...) say otherwise."""
    cfg = model_config(model)
    count = int(cfg.get("expected_params") or 1000)
    opt = cfg["optimizer"]
    base = {
        "steps": tolerances.STEPS,
        "loss_max_rel_diff": 1e-7,
        "weight_max_abs_diff": 1e-8,
        "weight_bound": tolerances.tight_bound(opt),
        "weights_beyond_bound": 0,
        "weights_compared": count,
        "lr_max_rel_diff": 0.0,
    }
    values = {
        "params": {tolerances.REFERENCE: count, backend: count},
        "expected_params": cfg.get("expected_params"),
        "forward_max_abs_diff": 2e-7,
        "weight_roundtrip_max_abs_diff": 0.0,
        "optimizer": opt,
        "training": {tolerances.BASE: base},
        # per-layer figures where the model names PARITY_LAYERS: a few roundings each
        "forward_layers": (
            {"layers": dict.fromkeys(layers, 10.0), "output": 5.0}
            if (layers := layer_parity.compared_layers(model))
            else {}
        ),
        **figures,
    }
    return ParityReport(
        model,
        passed=passed,
        failures=[] if passed else ["forward outputs differ by up to 0.5"],
        backend=backend,
        **values,
    )
