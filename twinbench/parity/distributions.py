"""Stochastic equivalence, numpy and scipy only: a backend's own random draws (draws.py) against
the reference's draws and the configuration. Each check returns (figures, failures); the
false-alarm rates are conf/equivalence/default.yaml's, Bonferroni-split over each family.

- init: per canonical weight tensor. Deterministic in the reference (equal at two seeds: zero
  biases, the LSTM forget-gate ones, BatchNorm's constants) -> equal exactly. Orthogonal in the
  reference (W W^T = I, recurrent kernels) -> orthogonal to float32 rounding. Otherwise random ->
  a two-sample Kolmogorov-Smirnov test and z-tests of the mean and the variance against the
  reference's draw.
- dropout: per dropout layer, in order: the declared rate equals the reference's and one of the
  config's rates; the zeroed fraction passes a binomial test at that rate; kept units are scaled
  by exactly 1 / (1 - rate).
- augment: on the coordinate probe (draws.coordinate_probe), each image must be an exact
  whole-pixel shift with edge ('nearest') fill, possibly mirrored; the shifts per axis must fit
  round(uniform(+-fraction * side)) (chi-square) and the flip rate the config's (binomial).
- validation: where the config augments, the coordinate probe as the backend's validation pass
  hands it to the network must equal the probe exactly: validation data are never augmented.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import stats

from twinbench.parity import draws, dropout_inputs
from twinbench.parity.draws import section, settings

Result = tuple[dict[str, Any], list[str]]


def _orthogonal_error(w: np.ndarray) -> float:
    """max |W W^T - I| (rows orthonormal) or max |W^T W - I| (columns), of W flattened to 2-D
    as Keras' Orthogonal initializer does: (prod(shape[:-1]), shape[-1])."""
    if w.ndim < 2:
        return float("inf")
    m = w.reshape(-1, w.shape[-1]).astype(np.float64)
    gram = m @ m.T if m.shape[0] <= m.shape[1] else m.T @ m
    return float(np.max(np.abs(gram - np.eye(len(gram)))))


def _subsample(values: np.ndarray, limit: int, seed: int) -> np.ndarray:
    flat = values.reshape(-1).astype(np.float64)
    if flat.size <= limit:
        return flat
    return np.random.default_rng(seed).choice(flat, limit, replace=False)


def _fourth_central_moment(x: np.ndarray) -> float:
    """mean((x - mean)^4), squaring twice: numpy's `** 4` on float64 takes its general power
    routine, about ten times slower, and the largest embeddings hold millions of values."""
    d = x - x.mean()
    d *= d
    return float(np.mean(d * d))


def _random_tests(a: np.ndarray, b: np.ndarray, limit: int) -> dict[str, float]:
    """p-values of one random tensor's draws: KS, mean, variance (the variance's standard error
    from the fourth moment, so no normality is assumed)."""
    ks = stats.ks_2samp(_subsample(a, limit, 0), _subsample(b, limit, 1), method="asymp")
    x, y = a.reshape(-1).astype(np.float64), b.reshape(-1).astype(np.float64)
    va, vb = x.var(), y.var()
    se_mean = np.sqrt(va / x.size + vb / y.size)
    m4a, m4b = _fourth_central_moment(x), _fourth_central_moment(y)
    se_var = np.sqrt(max(m4a - va**2, 0) / x.size + max(m4b - vb**2, 0) / y.size)

    def two_sided(diff: float, se: float) -> float:
        return 1.0 if se == 0 and diff == 0 else float(2 * stats.norm.sf(abs(diff) / se))

    return {
        "ks_p": float(ks.pvalue),
        "mean_p": two_sided(x.mean() - y.mean(), se_mean),
        "var_p": two_sided(va - vb, se_var),
        "std": [float(np.sqrt(va)), float(np.sqrt(vb))],
    }


def compare_init(reference: dict[str, Any], other: dict[str, Any]) -> Result:
    """The other backend's fresh weights (its own seed) against the reference's two draws."""
    conf = settings()["init"]
    first, second, mine = (
        section(reference, "init:0"),
        section(reference, "init:1"),
        section(other, "init:0"),
    )
    failures: list[str] = []
    kinds: dict[str, str] = {}
    for key, w in first.items():
        if key not in mine:
            failures.append(f"init: {key} missing")
        elif mine[key].shape != w.shape:
            failures.append(f"init: {key} shape {mine[key].shape} != {w.shape}")
        elif np.array_equal(w, second[key]):
            kinds[key] = "deterministic"
        elif _orthogonal_error(w) <= conf["orthogonal_atol"]:
            kinds[key] = "orthogonal"
        else:
            kinds[key] = "random"
    failures += [f"init: {key} is extra" for key in sorted(set(mine) - set(first))]
    random = [k for k, kind in kinds.items() if kind == "random"]
    tests_per_tensor = 3
    alpha = conf["family_alpha"] / max(1, tests_per_tensor * len(random))
    tensors: dict[str, Any] = {}
    for key, kind in kinds.items():
        w, v = first[key], mine[key]
        if kind == "deterministic":
            tensors[key] = {"kind": kind, "max_abs_diff": float(np.max(np.abs(w - v), initial=0))}
            if not np.array_equal(w, v):
                failures.append(f"init: {key} should equal the reference's fixed values")
        elif kind == "orthogonal":
            tensors[key] = {"kind": kind, "orthogonal_error": _orthogonal_error(v)}
            if not _orthogonal_error(v) <= conf["orthogonal_atol"]:
                failures.append(f"init: {key} is not orthogonal ({_orthogonal_error(v):.3g})")
        else:
            found = _random_tests(w, v, conf["ks_max_samples"])
            tensors[key] = {"kind": kind, **found}
            low = [t for t in ("ks_p", "mean_p", "var_p") if found[t] < alpha]
            if low:
                failures.append(
                    f"init: {key} not from the reference's distribution ({', '.join(low)} "
                    f"< {alpha:.2g}; std {found['std'][1]:.4g} vs {found['std'][0]:.4g})"
                )
    figures = {
        "family_alpha": conf["family_alpha"],
        "per_test_alpha": alpha,
        "tensors": tensors,
    }
    return figures, failures


def _binomial_p(zeros: int, n: int, rate: float) -> float:
    if rate in (0.0, 1.0):
        return 1.0 if zeros == round(rate * n) else 0.0
    return float(stats.binomtest(zeros, n, rate).pvalue)


def compare_dropout(reference: dict[str, Any], other: dict[str, Any], arch: dict) -> Result:
    """Each dropout layer of the other backend against the reference's, in order, and both
    against the configured rates (the arch keys naming a dropout rate)."""
    conf = settings()["dropout"]
    configured = {float(v) for k, v in arch.items() if "dropout" in k}
    # A rate-0 layer is the identity (Keras' MultiHeadAttention holds one when built without
    # attention dropout): it is left out on both sides; a rate changed from 0 on one side then
    # shows as a layer too many.
    ref_rates, my_rates = (
        {k: r for k, r in section(side, "dropout").items() if float(r) != 0.0}
        for side in (reference, other)
    )
    ref_out, my_out = section(reference, "dropout_out"), section(other, "dropout_out")
    failures: list[str] = []
    if len(ref_rates) != len(my_rates):
        failures.append(
            f"dropout: {len(my_rates)} dropout layers, the reference has {len(ref_rates)}"
        )
    alpha = conf["family_alpha"] / max(1, 2 * len(ref_rates))
    layers = []
    pairs = zip(sorted(ref_rates, key=_order), sorted(my_rates, key=_order), strict=False)
    for ref_key, my_key in pairs:
        rate = float(ref_rates[ref_key])
        if rate not in configured:
            failures.append(f"dropout: reference layer {ref_key} rate {rate} is not configured")
        for side, key, rates, outs in (
            ("reference", ref_key, ref_rates, ref_out),
            ("backend", my_key, my_rates, my_out),
        ):
            values = outs[key]
            zeros = int(np.sum(values == 0))
            kept = values[values != 0]
            p = _binomial_p(zeros, values.size, rate)
            scale_err = float(np.max(np.abs(kept * (1 - rate) - 1))) if kept.size else 0.0
            layers.append(
                {"layer": key, "side": side, "declared": float(rates[key]), "config": rate,
                 "zero_fraction": zeros / values.size, "binomial_p": p,
                 "scale_error": scale_err}
            )  # fmt: skip
            if p < alpha:
                failures.append(
                    f"dropout: {side} layer {key} zeroes {zeros / values.size:.4f} of its units, "
                    f"not the configured rate {rate} (binomial p {p:.2g} < {alpha:.2g})"
                )
            if scale_err > conf["scale_rtol"]:
                failures.append(
                    f"dropout: {side} layer {key} scales kept units by {kept.max():.4g}, "
                    f"not 1 / (1 - {rate})"
                )
    return {"family_alpha": conf["family_alpha"], "per_test_alpha": alpha, "layers": layers}, (
        failures
    )


def _order(key: str) -> int:
    return int(key.split(":", 1)[0])


def decode_augment(out: np.ndarray) -> dict[str, np.ndarray]:
    """Per image of an augmented coordinate probe: flipped, row shift, column shift, and whether
    the image is exactly that shift (edge fill) of the probe, mirrored where flipped."""
    h, w = out.shape[1:3]
    rows, cols = out[..., 0] - 1, out[..., 1] - 1
    flipped = cols[:, h // 2, 0] > cols[:, h // 2, -1]
    cols = np.where(flipped[:, None, None], cols[:, :, ::-1], cols)
    dy = h // 2 - rows[:, h // 2, w // 2]
    dx = w // 2 - cols[:, h // 2, w // 2]
    want_rows = np.clip(np.arange(h)[None, :] - dy[:, None], 0, h - 1)
    want_cols = np.clip(np.arange(w)[None, :] - dx[:, None], 0, w - 1)
    exact = np.all(rows == want_rows[:, :, None], axis=(1, 2)) & np.all(
        cols == want_cols[:, None, :], axis=(1, 2)
    )
    return {"flipped": flipped, "dy": dy.astype(int), "dx": dx.astype(int), "exact": exact}


def _shift_p(shifts: np.ndarray, max_shift: float) -> tuple[float, dict[int, int]]:
    """Chi-square p-value of whole-pixel shifts against round(uniform(-max_shift, max_shift))."""
    top = int(np.floor(max_shift + 0.5))
    support = np.arange(-top, top + 1)
    lo, hi = np.maximum(support - 0.5, -max_shift), np.minimum(support + 0.5, max_shift)
    expected = (hi - lo) / (2 * max_shift) * shifts.size
    counts = np.array([np.sum(shifts == k) for k in support])
    histogram = {int(k): int(c) for k, c in zip(support, counts, strict=True)}
    if counts.sum() != shifts.size:  # a shift outside the configured range
        return 0.0, histogram
    return float(stats.chisquare(counts, expected).pvalue), histogram


def check_augment(out: np.ndarray | None, spec: dict[str, Any] | None, side: str) -> Result:
    """One backend's augmented coordinate probe against the config's `augment:` block."""
    if not spec:
        return {}, ([f"augment: {side} augments, the config has no augmentation"]
                    if out is not None else [])  # fmt: skip
    if out is None:
        return {}, [f"augment: {side} does not augment; the config asks for it"]
    conf = settings()["augment"]
    alpha = conf["family_alpha"] / 3  # two shift axes and the flip rate
    d = decode_augment(out)
    h, w = out.shape[1:3]
    p_dy, hist_dy = _shift_p(d["dy"], float(spec["height_shift"]) * h)
    p_dx, hist_dx = _shift_p(d["dx"], float(spec["width_shift"]) * w)
    flips = int(d["flipped"].sum())
    p_flip = _binomial_p(flips, len(out), 0.5 if spec["horizontal_flip"] else 0.0)
    figures = {
        "family_alpha": conf["family_alpha"], "per_test_alpha": alpha,
        "images": len(out), "exact_fill_fraction": float(d["exact"].mean()),
        "flip_fraction": flips / len(out), "flip_p": p_flip,
        "height_shifts": hist_dy, "height_p": p_dy, "width_shifts": hist_dx, "width_p": p_dx,
    }  # fmt: skip
    failures = []
    if not d["exact"].all():
        failures.append(
            f"augment: {side}: {1 - d['exact'].mean():.1%} of images are not a whole-pixel shift "
            f"with {spec['fill_mode']!r} fill"
        )
    for name, p in (("height shifts", p_dy), ("width shifts", p_dx), ("flip rate", p_flip)):
        if p < alpha:
            failures.append(f"augment: {side}: {name} off the config (p {p:.2g} < {alpha:.2g})")
    return figures, failures


def check_validation(seen: np.ndarray | None, spec: dict[str, Any] | None, side: str) -> Result:
    """One backend's validation pass on the coordinate probe (draws.draw): pixel for pixel the
    probe, or the pass augments (or drops, reorders) what it validates on."""
    if not spec:
        return {}, []
    if seen is None:
        return {}, [f"validation: {side} has no validation probe"]
    probe = draws.coordinate_probe(settings()["augment"]["probe_images"], *seen.shape[1:])
    same_shape = seen.shape == probe.shape
    unchanged = np.all(seen == probe, axis=(1, 2, 3)) if same_shape else np.zeros(1, bool)
    figures = {
        "images": len(seen),
        "expected_images": len(probe),
        "unchanged_fraction": float(unchanged.mean()),
        "max_abs_diff": float(np.max(np.abs(seen - probe))) if same_shape else float("inf"),
    }
    if not same_shape:
        return figures, [f"validation: {side} validated {seen.shape}, not the probe {probe.shape}"]
    if not unchanged.all():
        return figures, [
            f"validation: {side} changed {1 - unchanged.mean():.1%} of the probe images it "
            f"validated on (max |diff| {figures['max_abs_diff']:.3g}): validation is augmented"
        ]
    return figures, []


def check_attention_dropout(other: dict[str, Any], side: str = "backend") -> Result:
    """Each attention layer's dropout as the backend's kernel applied it (draws.py): the
    attention result's variance over training-mode calls against the explicit reference's at the
    layer's declared rate. A layer that declares a rate and whose kernel drops at another (or at
    none) fails; a layer that declares none must show none."""
    import json

    rtol = settings()["attention_dropout"]["variance_rtol"]
    found = section(other, "attention_dropout")
    layers, failures = {}, []
    for key in sorted(found, key=_order):
        rate, figures = json.loads(str(found[key]))
        ratio = figures["variance_ratio"]
        layers[key] = {"rate": rate, **figures}
        if rate == 0.0:
            if figures["observed_variance"] != 0.0:
                failures.append(
                    f"attention dropout: {side} layer {key} declares no dropout but varies"
                )
        elif not abs(ratio - 1.0) <= rtol:
            failures.append(
                f"attention dropout: {side} layer {key} declares rate {rate:g}, but its kernel's "
                f"result varies {ratio:.3g} times as much as dropout at that rate (1 +- {rtol:g})"
            )
    return {"variance_rtol": rtol, "layers": layers}, failures


def check_dropout_in_forward(arrays: dict[str, Any], side: str) -> Result:
    """Each dropout layer with a rate as one training forward applied it (draws.py): it must
    run, and zero a share of the nonzero values it is handed that passes a binomial test at its
    own rate (Bonferroni over the side's layers, dropout's family_alpha). A layer skipped, or
    called so that it drops nothing (training=False), fails, though the layer probe, which
    calls each layer itself, passes it; so does one whose output the forward discards, which
    it alone then leaves the model's output as it was (`output_change`)."""
    import json

    found = {k: json.loads(str(v)) for k, v in section(arrays, "dropout_in_forward").items()}
    alpha = settings()["dropout"]["family_alpha"] / max(1, len(found))
    reaches = settings()["dropout"]["output_change_min"]
    layers, failures = {}, []
    for name in sorted(found):
        seen = found[name]
        share = seen["zeroed"] / seen["inputs"] if seen["inputs"] else None
        p = _binomial_p(seen["zeroed"], seen["inputs"], seen["rate"]) if seen["inputs"] else 0.0
        layers[name] = {**seen, "zeroed_share": share, "binomial_p": p}
        if seen["calls"] == 0:
            failures.append(
                f"dropout: {side} layer {name} holds a rate, but a training forward never runs it"
            )
        elif p < alpha:
            failures.append(
                f"dropout: {side} layer {name} zeroes {share or 0:.4f} of the values a training "
                f"forward hands it, not its rate {seen['rate']:g} (binomial p {p:.2g} < "
                f"{alpha:.2g})"
            )
        elif seen.get("output_change") is None:
            failures.append(
                f"dropout: {side} layer {name}: its effect on the output was not measured"
            )
        elif seen["output_change"] < reaches:
            failures.append(
                f"dropout: {side} layer {name} drops, but what it returns never reaches the "
                f"model's output (it alone moves the output by {seen['output_change']:.2g} of its "
                f"size, under {reaches:g})"
            )
    return {"per_test_alpha": alpha, "output_change_min": reaches, "layers": layers}, failures


def compare_all(reference: dict[str, Any], other: dict[str, Any], cfg: dict[str, Any]) -> Result:
    """Every stochastic check of one backend's draws (and the reference's augmentation) ->
    ({"init": ..., "dropout": ..., "augment": ..., "validation": ...}, failures)."""
    from twinbench.parity.draws import PREFIX

    init, f_init = compare_init(reference, other)
    dropout, f_drop = compare_dropout(reference, other, cfg["arch"])
    spec = cfg.get("augment")
    ref_aug, f_ref = check_augment(reference.get(f"{PREFIX}augment"), spec, "reference")
    my_aug, f_mine = check_augment(other.get(f"{PREFIX}augment"), spec, "backend")
    ref_val, f_ref_val = check_validation(reference.get(f"{PREFIX}validation"), spec, "reference")
    my_val, f_my_val = check_validation(other.get(f"{PREFIX}validation"), spec, "backend")
    attention, f_att = check_attention_dropout(other)
    in_forward = {}
    for side, arrays in (("reference", reference), ("backend", other)):
        in_forward[side], f_forward = check_dropout_in_forward(arrays, side)
        f_att += f_forward
    inputs, f_inputs = dropout_inputs.compare_dropout_inputs(reference, other)
    f_att += f_inputs
    # the reference's own kernel too: a certificate pair is only as good as both halves
    on_reference, f_att_ref = check_attention_dropout(reference, "reference")
    attention["reference_layers"] = on_reference["layers"]
    f_att += f_att_ref
    figures = {
        "init": init,
        "dropout": dropout,
        "attention_dropout": attention,
        "dropout_in_forward": in_forward,
        "dropout_inputs": inputs,
        "augment": {"reference": ref_aug, "backend": my_aug},
        "validation": {"reference": ref_val, "backend": my_val},
    }
    return figures, f_init + f_drop + f_att + f_ref + f_mine + f_ref_val + f_my_val
