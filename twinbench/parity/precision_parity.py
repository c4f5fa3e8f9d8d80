"""bfloat16 parity: the mixed-bfloat16 halves compute the same math (docs/equivalence.md,
"bfloat16 parity").

For `precision=bfloat16`, each backend's stage (precision_stage.py) runs one forward pass and
loss on the probe batch from the reference's canonical weights, with a dtype trace of what ran
(frameworks/product_trace.py). A pair passes when
1. every matrix product and convolution on both sides took bfloat16 operands (a float32 product
   on one side fails, one line naming its op and output shape), the loss was computed in float32
   (its logarithms' operands, where a Keras loss in bfloat16 shows before Keras casts its value
   to float32) and the variables are float32, on both sides;
2. both sides ran the same product ops: the same multiset of (kind, output shape);
3. the bf16 probabilities agree, as log-probabilities, with the reference backend's bf16 ones
   within frameworks/tolerances.py bf16_bound(halves=True), derived from bfloat16's unit
   roundoff, and each side's with the reference backend's float32 ones within the looser
   bf16_bound(halves=False); the losses within the same bounds.
The dtype checks catch what the numbers cannot: one layer left in float32 moves the outputs by
less than the bound (it removes roundings), and a loss taken in bfloat16 moves it by ~u.
Numpy only: the stages import the frameworks.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from frameworks.product_trace import LOG, PRODUCTS
from frameworks.tolerances import REFERENCE, bf16_bound
from twinbench.parity.stages import Variants, other_backends, run_stages_many

PRECISION = "bfloat16"
UNMUTATED = "unmutated"  # the variant label of the real check: every backend as it runs
TINY = 1e-30  # log-probabilities are floored here: a probability that underflowed to 0


@dataclass
class PrecisionReport:
    """One (model, backend) pair's bfloat16 parity: `backend` against `reference`."""

    model: str
    backend: str
    reference: str = REFERENCE
    precision: str = PRECISION
    depth: int = 0  # L: product layers in depth (the reference's product ops)
    product_ops: dict[str, list[str]] = field(default_factory=dict)  # backend -> "op dtypes"
    loss_ops: dict[str, list[str]] = field(default_factory=dict)  # the loss's logarithms
    loss_dtype: dict[str, str] = field(default_factory=dict)
    variable_dtypes: dict[str, list[str]] = field(default_factory=dict)
    # max |d log p| and its bound: the backend's bf16 against the reference's bf16 ("halves"),
    # and each bf16 side against the reference's float32 ("<backend> vs float32")
    forward: dict[str, dict[str, float]] = field(default_factory=dict)
    loss: dict[str, float] = field(default_factory=dict)
    passed: bool = False
    failures: list[str] = field(default_factory=list)


def products(trace: dict[str, Any]) -> list[dict[str, Any]]:
    """The trace's matrix products and convolutions (not the loss's logarithms)."""
    return [op for op in trace["ops"] if op["kind"] in PRODUCTS]


def dtype_failures(backend: str, trace: dict[str, Any], precision: str = PRECISION) -> list[str]:
    """What `backend`'s trace ran otherwise than mixed `precision` means: products in
    `precision`; the loss (its logarithms, and the value it returns) and the variables in
    float32. One line each."""
    found = []
    if not products(trace):
        found.append(f"{backend}: no matrix product was traced (the tracer saw nothing)")
    for op in products(trace):
        if any(d != precision for d in op["dtypes"]):
            found.append(
                f"{backend}: {op['kind']} {op['op']} -> {op['shape']} computed in "
                f"{', '.join(op['dtypes'])}, not {precision}"
            )
    logs = [op for op in trace["ops"] if op["kind"] == LOG]
    off = sorted({d for op in logs for d in op["dtypes"] if d != "float32"})
    if not logs:
        found.append(f"{backend}: no logarithm of the loss was traced")
    elif off:
        named = ", ".join(sorted({op["op"] for op in logs}))
        found.append(f"{backend}: the loss was computed in {', '.join(off)}, not float32 ({named})")
    elif trace["loss_dtype"] != "float32":
        found.append(f"{backend}: the loss came out in {trace['loss_dtype']}, not float32")
    if trace["variable_dtypes"] != ["float32"]:
        found.append(
            f"{backend}: variables in {', '.join(trace['variable_dtypes'])}, not float32 only"
        )
    return found


def op_multiset_failures(names: tuple[str, str], traces: tuple[dict, dict]) -> list[str]:
    """Both sides ran the same products: the multisets of (kind, canonical output shape)."""
    counts = [Counter((op["kind"], tuple(op["shape"])) for op in products(t)) for t in traces]
    found = []
    for side, (mine, theirs) in enumerate(((counts[0], counts[1]), (counts[1], counts[0]))):
        extra = mine - theirs
        if extra:
            listed = ", ".join(f"{k} {list(s)} x{n}" for (k, s), n in sorted(extra.items()))
            found.append(f"product ops only {names[side]} ran: {listed}")
    return found


def log_probs(probs: np.ndarray) -> np.ndarray:
    return np.log(np.maximum(np.asarray(probs, dtype=np.float64), TINY))


def scale(reference_float32: np.ndarray) -> np.ndarray:
    """S per probe row: the float32 reference's largest |log p_i - mean_j log p_j|."""
    lp = log_probs(reference_float32)
    return np.max(np.abs(lp - lp.mean(axis=-1, keepdims=True)), axis=-1)


def forward_figures(
    a: np.ndarray, b: np.ndarray, depth: int, s: np.ndarray, halves: bool
) -> dict[str, float]:
    """max |d log p| over the probe batch, the bound of its row, and their largest ratio."""
    diff = np.abs(log_probs(a) - log_probs(b)).max(axis=-1)
    bound = bf16_bound(depth, s, halves)
    worst = int(np.argmax(diff / bound))
    return {
        "max_abs_log_prob_diff": float(diff.max()),
        "bound": float(bound[worst]),
        "worst_ratio": float(diff[worst] / bound[worst]),
        # in probabilities, as float32 parity's forward tolerance (1e-5 + 1e-4) reads them
        "max_abs_prob_diff": float(np.max(np.abs(np.asarray(a) - np.asarray(b)))),
    }


def compare_pair(
    model: str,
    reference: str,
    backend: str,
    ref_out: dict[str, np.ndarray],
    out: dict[str, np.ndarray],
    label: str = UNMUTATED,
) -> PrecisionReport:
    """`backend`'s variant `label` against the reference's: the dtype traces, the product ops,
    and the forward outputs and losses against the bounds."""
    traces = {
        reference: json.loads(str(ref_out[f"{label}:trace"])),
        backend: json.loads(str(out[f"{label}:trace"])),
    }
    report = PrecisionReport(model=model, backend=backend, reference=reference)
    report.depth = depth = len(products(traces[reference]))
    for name, trace in traces.items():
        shown = [f"{op['op']} {op['shape']} {'/'.join(op['dtypes'])}" for op in trace["ops"]]
        report.product_ops[name] = [
            text for text, op in zip(shown, trace["ops"], strict=True) if op["kind"] in PRODUCTS
        ]
        report.loss_ops[name] = [
            text for text, op in zip(shown, trace["ops"], strict=True) if op["kind"] == LOG
        ]
        report.loss_dtype[name] = trace["loss_dtype"]
        report.variable_dtypes[name] = trace["variable_dtypes"]
        report.failures += dtype_failures(name, trace)
    report.failures += op_multiset_failures(
        (reference, backend), (traces[reference], traces[backend])
    )
    float32 = ref_out["float32:probs"]
    s = scale(float32)
    bf16 = {reference: ref_out[f"{label}:probs"], backend: out[f"{label}:probs"]}
    report.forward["halves"] = forward_figures(bf16[reference], bf16[backend], depth, s, True)
    for name, probs in bf16.items():
        report.forward[f"{name} vs float32"] = forward_figures(probs, float32, depth, s, False)
    for key, figures in report.forward.items():
        if figures["worst_ratio"] > 1.0:
            report.failures.append(
                f"forward ({key}): log-probabilities differ by up to "
                f"{figures['max_abs_log_prob_diff']:.3g}, "
                f"over the bf16 bound {figures['bound']:.3g}"
            )
    losses = {reference: float(ref_out[f"{label}:loss"]), backend: float(out[f"{label}:loss"])}
    loss_bound = float(bf16_bound(depth, s.max(), True))
    report.loss = {
        **losses,
        "abs_diff": abs(losses[reference] - losses[backend]),
        "bound": loss_bound,
    }
    if report.loss["abs_diff"] > loss_bound:
        report.failures.append(
            f"losses differ: {reference} {losses[reference]:.6g}, {backend} "
            f"{losses[backend]:.6g} (bound {loss_bound:.3g})"
        )
    report.passed = not report.failures
    return report


def check_many(
    model_names: list[str], backends: list[str] | None = None, reference: str = REFERENCE
) -> dict[str, list[PrecisionReport]]:
    """bfloat16 parity of each model on `backends` (default: every one but the reference), one
    stage process per backend for all models: model -> its pair reports."""
    backends = backends or other_backends(reference)
    variants = {name: {UNMUTATED: {b: {} for b in [reference, *backends]}} for name in model_names}
    outputs = run_stages_many(variants, reference, precision=PRECISION)
    return {
        name: [
            compare_pair(name, reference, b, outputs[name][reference], outputs[name][b])
            for b in backends
        ]
        for name in model_names
    }


def check_variants(
    variants: dict[str, Variants], reference: str = REFERENCE
) -> dict[str, dict[str, list[str]]]:
    """bfloat16 parity of mutation variants ({model: {label: {backend: mutation}}}, `{}`
    unmutated): model -> label -> failures (empty where every backend the label names agrees
    with the reference)."""
    outputs = run_stages_many(variants, reference, precision=PRECISION)
    result: dict[str, dict[str, list[str]]] = {}
    for model, per_model in variants.items():
        result[model] = {}
        for label, specs in per_model.items():
            failures = []
            for backend in sorted(set(specs) - {reference}):
                out = outputs[model]
                failures += compare_pair(
                    model, reference, backend, out[reference], out[backend], label
                ).failures
            result[model][label] = failures
    return result
