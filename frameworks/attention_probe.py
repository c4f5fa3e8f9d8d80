"""Which attention path and kernel a transformer run took, asked of the framework itself after
training (the record's `attention` block; the report's fused/explicit split reads it).

`arch.attention` says what was asked; the framework decides what runs:
- torch: SelfAttention (models/torch_transformer.py) follows the setting; under "fused",
  F.scaled_dot_product_attention picks a kernel per call (flash, math, ...), so torch's own
  dispatcher (torch._fused_sdp_choice) is asked for its choice at the run's shapes, dtype,
  training dropout and mask. That is eager dispatch: under torch.compile Inductor may lower
  the call its own way.
- Keras: MultiHeadAttention goes through ops.dot_product_attention only when its own test
  passes (no attention dropout, no scores asked for); the layer's _compute_attention is called
  once on zeros and says which way it went (the fused route returns no scores).
"""

from __future__ import annotations

from typing import Any

EXPLICIT = "explicit"
FUSED = "fused"


def _torch(model: Any, t: int, batch: int) -> dict[str, Any] | None:
    import torch

    from models.torch_transformer import SelfAttention

    found = [m for m in model.modules() if isinstance(m, SelfAttention)]
    if not found:
        return None
    layer = found[0]
    if layer.kernel == EXPLICIT:
        return {
            "path": EXPLICIT,
            "kernel": "matmul-softmax-matmul (torch ops)",
            "layers": len(found),
        }
    from torch.nn.attention import SDPBackend

    heads, head_dim = layer.shape
    weight = layer.query.weight
    q = torch.zeros(batch, heads, t, head_dim, dtype=weight.dtype, device=weight.device)
    drop = layer.attention_dropout.p  # the training step's, whatever mode the model is left in
    choice = torch._fused_sdp_choice(q, q, q, None, drop, layer.causal, scale=layer.scale)
    kernel = f"scaled_dot_product_attention: {SDPBackend(choice).name.lower()}"
    return {"path": FUSED, "kernel": kernel, "layers": len(found)}


def _keras(model: Any) -> dict[str, Any] | None:
    import keras
    from keras import layers, ops

    found = [x for x in model._flatten_layers() if isinstance(x, layers.MultiHeadAttention)]
    if not found:
        return None
    layer = found[0]
    q = ops.zeros((1, 2, layer.num_heads, layer.key_dim))
    # training=False: Keras' route does not depend on it, and no dropout draw moves a seed.
    _, scores = layer._compute_attention(q, q, q, None, training=False)
    if scores is None:
        kernel = f"ops.dot_product_attention ({keras.backend.backend()})"
        return {"path": FUSED, "kernel": kernel, "layers": len(found)}
    return {"path": EXPLICIT, "kernel": "einsum-softmax-einsum (MultiHeadAttention)",
            "layers": len(found)}  # fmt: skip


def ran(model: Any, model_cfg: dict[str, Any], batch: int) -> dict[str, Any] | None:
    """{"asked", "path", "kernel", "layers"} for a model with an attention setting, else None.
    A probe that fails says so in "error" rather than failing the run it describes."""
    arch = model_cfg.get("arch") or {}
    asked = arch.get("attention")
    if asked is None:
        return None
    # A Keras model (on any runtime, torch's included) tracks its layers; a native torch one does
    # not. Asked of the model, so a Keras process never imports torch for this.
    is_keras = hasattr(model, "_flatten_layers")
    try:
        found = _keras(model) if is_keras else _torch(model, int(arch["maxlen"]), batch)
    except Exception as exc:  # a look after training never fails the run it describes
        return {
            "asked": asked,
            "path": None,
            "kernel": None,
            "error": f"{type(exc).__name__}: {exc}",
        }
    return None if found is None else {"asked": asked, **found}
