"""What a parity check runs and how closely two backends must agree (float32, one thread).

The bounds and their derivations: forward outputs to FORWARD_RTOL/ATOL; after STEPS optimizer
steps, weights to tight_bound() (a small fraction of the distance the optimizer could move them
apart, never that distance itself) save OUTLIER_FRACTION of them, losses to TRAIN_RTOL; learning
rates to SCHEDULE_RTOL; BatchNorm moving variances within what torch's unbiased update allows.
bfloat16 parity's bounds (bf16_bound), derived from bfloat16's unit roundoff, are at the end.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from frameworks import registry

STEPS = 5
BATCH = 32
PROBE = 64
BASE = "configured"  # the variant every check runs: the yaml's optimizer, unchanged

# float32 tolerances. Forward: both compute the same sums in different orders (oneDNN vs MKL).
FORWARD_RTOL, FORWARD_ATOL = 1e-4, 1e-5
# Training with one formula: rounding differences grow a little with each step, and adaptive
# optimizers (update ~ g / sqrt(v)) amplify them where gradients are small, in proportion to
# the step: weights must agree to TRAIN_ATOL or to DRIFT_FRACTION of the distance the optimizer
# could move them apart in STEPS steps (see drift()), whichever is larger; losses to TRAIN_RTOL.
TRAIN_RTOL, TRAIN_ATOL, DRIFT_FRACTION = 1e-3, 1e-5, 1e-3
# A weight whose true gradient is ~0 gets a gradient of either sign from rounding alone, and an
# adaptive optimizer turns either into a full step (lr / sqrt(1 - rho)): a handful of such weights
# may exceed the bound (charlstm: 6 of 102,585 one-hot input weights). More than this fraction
# is a real difference: one hyperparameter changed on one side moves most weights past it.
OUTLIER_FRACTION = 1e-4
# A model whose layers leave more weights with rounding-level gradients (max-pooling, ReLU,
# 1.25 M weights) states its own allowance in conf/model/<name>.yaml, with the count measured.
OUTLIER_KEY = "parity_outlier_fraction"


def outlier_fraction(model_cfg: dict[str, Any]) -> float:
    """The share of weights allowed past the bound for this model (OUTLIER_FRACTION unless its
    yaml states another, with the measurement that set it)."""
    return float(model_cfg.get(OUTLIER_KEY, OUTLIER_FRACTION))


# Learning rates read from both optimizers at these steps (and at the last step of a full run).
SCHEDULE_STEPS = (0, 1, 10, 100, 1_000, 10_000, 100_000, 1_000_000)
SCHEDULE_RTOL = 1e-6
# BatchNorm moving variances are compared apart: torch updates them with the unbiased batch
# variance (n / (n - 1) times Keras' biased one), so torch's ends up larger by at most
# 1 / (BATCH - 1) of Keras' (the normalisation itself uses the biased variance in both).
MOVING_VARIANCE = "/moving_variance"
REFERENCE = registry.REFERENCE  # see twinbench/parity/__init__.py; --reference overrides it


def drift(opt: dict[str, Any]) -> float:
    """Largest distance two implementations of the optimizer can move a weight apart in STEPS
    steps: 2 * STEPS * lr * max_step_factor."""
    return 2 * STEPS * opt["lr"] * max_step_factor(opt)


def tight_bound(opt: dict[str, Any]) -> float:
    """Weight tolerance where both frameworks compute the same update formula."""
    d = drift(opt)
    return max(TRAIN_ATOL, DRIFT_FRACTION * d) if np.isfinite(d) else TRAIN_ATOL


def moving_variance_excess(reference_var: np.ndarray, other_var: np.ndarray) -> float:
    """How far the other backend's moving variance lies outside [the reference's, the
    reference's * (1 + 1/(BATCH-1))], the interval an unbiased update (torch's BatchNorm) can
    reach from Keras' biased one (0 inside it, the excess beyond it otherwise)."""
    low, high = reference_var - TRAIN_ATOL, reference_var * (1 + 1 / (BATCH - 1)) + TRAIN_ATOL
    return max(0.0, float(np.max(np.maximum(low - other_var, other_var - high))))


def max_step_factor(opt: dict[str, Any]) -> float:
    """Largest |update| / lr a single step can make (Kingma & Ba 2015, §2.1, and its RMSprop
    analogue): bounds how far two implementations can drift apart per step."""
    if opt["name"] == "rmsprop":
        return 1.0 / np.sqrt(1.0 - opt["rho"])
    if opt["name"] in ("adam", "adamw"):
        return max(1.0, (1.0 - opt["beta_1"]) / np.sqrt(1.0 - opt["beta_2"]))
    return float("inf")


# ---------------------------------------------------------------- bfloat16 parity
# (twinbench/parity/precision_parity.py). Compared: log-probabilities on the probe batch, whose
# absolute error is the relative error of the probabilities. Derivation, to first order:
# - bfloat16 keeps 8 significant bits: unit roundoff u = 2**-8 (round to nearest even).
# - A product layer in mixed bfloat16 rounds its two operands to bfloat16 (<= u each), sums
#   their products in float32 (exact to ~2**-24 against u) and rounds its result to bfloat16
#   (<= u): <= 3u relative per layer. ReLU, pooling, flattening and dropout (off) round nothing.
#   Over L product layers in depth the relative errors add: 3Lu of the logits' scale S.
# - log p_i = z_i - logsumexp(z) moves by d z_i - sum_j p_j d z_j: at most twice the largest
#   logit error. S is the reference float32 row's largest |log p_i - mean_j log p_j| (the
#   logits' spread about their mean; log-probabilities carry no offset), at least 1 where the
#   logits are small (an untrained network's), since each layer's rounding is relative to its
#   operands' magnitude, not to the cancelled sum.
# - A softmax computed in bfloat16 (Keras' output layer under mixed_bfloat16) rounds exp, the
#   sum and the quotient: 3u more on log p.
# Each bf16 side against the float32 reference: |d log p| <= 2 * 3Lu * S + 3u.
# The two bf16 halves start from the same canonical weights and inputs and round alike (to
# nearest even everywhere), so their operand roundings coincide; what can differ per layer is
# the result's rounding (one bf16 ulp, 2u, where the float32 sums, taken in other orders,
# straddle a rounding boundary, or where one side rounds once more to add the bias apart:
# Keras' matmul then add against torch's one addmm): 2Lu of S on the logits, twice that on
# log p, and each side's softmax rounding: |d log p| <= 2 * 2Lu * S + 2 * 3u.
# Against float32 (2 * 3Lu * S + 3u) that is tighter wherever L * S > 3/2: every model here.
# First order and without cancellation: a sum whose terms cancel has a larger relative error;
# the measured differences (docs/equivalence.md, "bfloat16 parity") sit well inside.
BF16_UNIT_ROUNDOFF = 2.0**-8
BF16_ROUNDINGS_REFERENCE = 3  # per product layer against float32: two operands, the result
BF16_ROUNDINGS_HALVES = 2  # per product layer between the halves: one ulp of the result
BF16_SOFTMAX_ROUNDINGS = 3  # exp, sum, quotient, on a side that takes the softmax in bf16
BF16_MIN_SCALE = 1.0  # the logits' scale S never counts below 1 (see above)


def bf16_bound(depth: int, scale: np.ndarray, halves: bool) -> np.ndarray:
    """The largest |d log p| bfloat16 parity allows per probe row: between the two bf16 halves
    (`halves`) or between a bf16 side and the float32 reference. `depth` is L, the product
    layers in depth; `scale` the rows' S (above)."""
    u = BF16_UNIT_ROUNDOFF
    s = np.maximum(np.asarray(scale, dtype=np.float64), BF16_MIN_SCALE)
    if halves:
        return 2 * BF16_ROUNDINGS_HALVES * depth * u * s + 2 * BF16_SOFTMAX_ROUNDINGS * u
    return 2 * BF16_ROUNDINGS_REFERENCE * depth * u * s + BF16_SOFTMAX_ROUNDINGS * u
