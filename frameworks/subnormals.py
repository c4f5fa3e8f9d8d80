"""How many of a trained model's floats are subnormal (denormal): the record's `subnormals` block.

Why it is asked: a CPU that meets a subnormal operand or result in a vector instruction can take
a microcode assist for it, many times the instruction's cost. A framework that flushes them to
zero (TensorFlow always does; torch only with `backend.flush_denormal=true`) never pays it. Late
in training, weights, gradients and an optimizer's running averages of squared gradients drift
towards zero, and a run that computes subnormals can slow down step by step (the record's
`timing.drift`). The count after the last timed step says whether that state was reached.

The count reads bit patterns (exponent bits all zero, mantissa not), never compares values: a
thread with denormals-are-zero set (TensorFlow's) would compare a subnormal equal to 0 and
count none. Asked of the model and its optimizer after training, outside every timed step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

import numpy as np

from twinbench.result.blocks import SUBNORMALS_FLAG

# Per float width: the unsigned view, the exponent mask and the mantissa mask.
_BITS: dict[str, tuple[type, int, int]] = {
    "float64": (np.uint64, 0x7FF0000000000000, 0x000FFFFFFFFFFFFF),
    "float32": (np.uint32, 0x7F800000, 0x007FFFFF),
    "float16": (np.uint16, 0x7C00, 0x03FF),
    "bfloat16": (np.uint16, 0x7F80, 0x007F),
}

PARAMETERS = "parameters"
GRADIENTS = "gradients"  # native torch keeps the last step's; Keras' train step does not
OPTIMIZER_STATE = "optimizer_state"
PREDICTIONS = "predictions"  # output probabilities on one training batch, inference mode

# conf/config.yaml measure.subnormal_flag_share, for callers without a config
FLAG_SHARE = 0.001


def count(array: np.ndarray) -> tuple[int, int]:
    """(floats, subnormal floats) in one array; (0, 0) for a non-float array (a step count)."""
    bits = _BITS.get(np.dtype(array.dtype).name)
    if bits is None:
        return 0, 0
    unsigned, exponent, mantissa = bits
    raw = np.ascontiguousarray(array).view(unsigned)
    subnormal = ((raw & unsigned(exponent)) == 0) & ((raw & unsigned(mantissa)) != 0)
    return int(raw.size), int(np.count_nonzero(subnormal))


def tally(groups: dict[str, Iterable[np.ndarray]]) -> dict[str, Any]:
    """{"values", "subnormal", "share"}, each keyed by group, over every float array of a group."""
    values: dict[str, int] = {}
    subnormal: dict[str, int] = {}
    for name, arrays in groups.items():
        counts = [count(a) for a in arrays]
        values[name] = sum(n for n, _ in counts)
        subnormal[name] = sum(s for _, s in counts)
    share = {k: (subnormal[k] / values[k] if values[k] else 0.0) for k in values}
    return {"values": values, "subnormal": subnormal, "share": share}


def _torch_numpy(tensor: Any) -> np.ndarray:
    import torch

    t = tensor.detach().cpu()
    if t.dtype == torch.bfloat16:  # numpy has no bfloat16: hand over its bits, named as such
        import ml_dtypes

        return t.view(torch.int16).numpy().view(ml_dtypes.bfloat16)
    return t.numpy()


def _torch(model: Any, optimizer: Any) -> dict[str, list[np.ndarray]]:
    import torch

    state = []
    if optimizer is not None:
        for per_param in optimizer.state.values():
            state += [_torch_numpy(v) for v in per_param.values() if isinstance(v, torch.Tensor)]
    from frameworks.torch_native.backend import counted_weights

    weights = counted_weights(model)  # what the record's `params` counts
    return {
        PARAMETERS: [_torch_numpy(w) for w in weights],
        GRADIENTS: [_torch_numpy(w.grad) for w in weights if w.grad is not None],
        OPTIMIZER_STATE: state,
    }


def _keras(model: Any) -> dict[str, list[np.ndarray]]:
    from keras import ops

    optimizer = getattr(model, "optimizer", None)
    return {
        # model.weights: BatchNorm's moving statistics too, as the record's `params` counts
        PARAMETERS: [ops.convert_to_numpy(v) for v in model.weights],
        OPTIMIZER_STATE: [
            ops.convert_to_numpy(v) for v in (optimizer.variables if optimizer else [])
        ],
    }


def measured(
    model: Any, optimizer: Any = None, predict: Callable[[], np.ndarray] | None = None
) -> dict[str, Any]:
    """The `subnormals` block of a trained model (Keras on any runtime, or native torch with its
    optimizer); `predict` gives the model's output probabilities on a batch, computed by the
    run's own kernels, where a confident classifier's tiny probabilities first appear. A look
    that fails says so in "error" rather than failing the run it describes."""
    import time

    start = time.perf_counter()
    try:
        # A Keras model tracks its layers; a native torch one does not (attention_probe.py).
        groups = _keras(model) if hasattr(model, "_flatten_layers") else _torch(model, optimizer)
        if predict is not None:
            groups[PREDICTIONS] = [np.asarray(predict())]
        found = tally(groups)
    except Exception as exc:  # a look after training never fails the run it describes
        return {"error": f"{type(exc).__name__}: {exc}"}
    return {**found, "seconds": time.perf_counter() - start}


def flag(
    found: dict[str, Any] | None, settings: dict[str, Any], share: float, slowed: float | None
) -> str | None:
    """The record's flag of a run whose steps slowed as it trained (`slowed`: the drift ratio
    of a drifting run, else None) while any group's subnormal share reached `share`
    (measure.subnormal_flag_share) and the backend's kernels compute with subnormals. None
    where the steps did not slow (a count alone qualifies no figure: Keras on torch's MLP left
    9% of its predictions subnormal without slowing), where the kernels flush them (their
    operands are then read as zero, never assisted), or where none is there."""
    shares = (found or {}).get("share") or {}
    over = {k: v for k, v in shares.items() if v >= share}
    flushes = settings.get("flush_denormal")
    if not over or flushes is True or slowed is None or slowed <= 1.0:
        return None
    parts = [f"{v:.2%} of the {k.replace('_', ' ')}" for k, v in over.items()]
    where = " and ".join([", ".join(parts[:-1]), parts[-1]] if len(parts) > 1 else parts)
    remedy = (
        "backend.flush_denormal=true flushes them to zero, as TensorFlow always does"
        if flushes is False
        else "this backend has no setting that flushes them"
    )
    return (
        f"{SUBNORMALS_FLAG} the steps slowed {slowed:.2f}x as it trained (timing.drift), and "
        f"after training {where} are subnormal (denormal) floats, which this backend's kernels "
        f"compute with: a CPU may take a slow assist on each; {remedy}"
    )
