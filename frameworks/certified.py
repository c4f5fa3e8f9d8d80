"""What an equivalence certificate certifies, fingerprinted without importing a framework.

A certificate (twinbench.parity writes them) holds this fingerprint: hashes of the model's file
and config, of every backend's certified training code (the registry's list) and of the shared
optimizer formulas, and the installed framework versions. The analysis recomputes it to tell a
current certificate from a stale one, so it lives here, framework-free, beside the registry.
"""

from __future__ import annotations

import hashlib
import json
from importlib import metadata
from pathlib import Path
from typing import Any

from frameworks import registry
from models.catalog import model_config
from twinbench.paths import CONF_DIR, REPO_ROOT

# What a certificate certifies besides the model's own file and config: the code that turns a
# config into each backend's training math (the registry's certified_code) and the optimizer
# formulas every backend shares.
# The stochastic checks (initial weights, dropout, augmentation, unaugmented validation) are
# certified too: their probes, their tests and their false-alarm rates, and each side's
# augmentation and validation code (torch's evaluate.py, Keras' validation probe here; Keras'
# validation() is in KERAS_CODE's common.py).
SHARED_CERTIFIED_CODE = (
    "frameworks/optimizer_formula.py",
    "frameworks/keras/augment.py",
    "frameworks/torch_native/augment.py",
    "frameworks/torch_native/evaluate.py",
    "frameworks/keras/stochastic.py",
    "twinbench/parity/draws.py",
    "twinbench/parity/distributions.py",
    "conf/equivalence/default.yaml",
    "models/transformer.py",
    "frameworks/layer_parity.py",
)


def framework_packages() -> tuple[str, ...]:
    """The packages whose versions a certificate certifies: every registered backend's."""
    return registry.packages()


def _sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _source(path: str) -> Path:
    """Where a certified file is: conf/ files in CONF_DIR (inside the package when installed,
    where there is no conf/ beside it), the code beside the packages."""
    conf = "conf/"
    return CONF_DIR / path.removeprefix(conf) if path.startswith(conf) else REPO_ROOT / path


def _installed(package: str) -> str | None:
    try:
        return metadata.version(package)
    except metadata.PackageNotFoundError:
        return None


def fingerprint(model_name: str, stack_pins: dict[str, str] | None = None) -> dict[str, Any]:
    """What a certificate certifies, read without importing a framework: hashes of the model's
    file and config and of the optimizer and layout code, and the installed framework versions;
    on a stack (conf/stack/) other than the project's own environment, its pins too, so a
    certificate holds for that stack only."""
    own = [f"models/{model_name}.py", f"conf/model/{model_name}.yaml"]
    files = [*own, *registry.certified_code(), *SHARED_CERTIFIED_CODE]
    found = {path: _source(path) for path in files}
    hashes = {path: _sha256(file.read_bytes()) for path, file in found.items() if file.is_file()}
    config = json.dumps(model_config(model_name), sort_keys=True).encode()
    return {
        "files": hashes,
        "config_sha256": _sha256(config),
        "versions": {p: v for p in framework_packages() if (v := _installed(p)) is not None},
        **({"stack_pins": dict(sorted(stack_pins.items()))} if stack_pins else {}),
    }


# What a bfloat16 parity block (twinbench/parity/certificates.py record_precision) certifies
# besides the float32 certificate's files: the tracers, the adapters' probes and the precision
# code they run, the stage and the comparison with its bounds.
PRECISION_CERTIFIED_CODE = (
    "frameworks/product_trace.py",
    "frameworks/precision_probe.py",
    "frameworks/tolerances.py",
    "frameworks/torch_native/precision.py",
    "frameworks/torch_native/dtype_trace.py",
    "frameworks/torch_native/precision_probe.py",
    "frameworks/keras/dtype_trace.py",
    "frameworks/keras/precision_probe.py",
    "twinbench/parity/precision_stage.py",
    "twinbench/parity/precision_parity.py",
)


def precision_fingerprint(model_name: str) -> dict[str, Any]:
    """fingerprint() with the bfloat16 parity code's hashes added to its files."""
    printed = fingerprint(model_name)
    for path in PRECISION_CERTIFIED_CODE:
        if (file := _source(path)).is_file():
            printed["files"][path] = _sha256(file.read_bytes())
    return printed


def differences(certified: dict[str, Any], current: dict[str, Any]) -> list[str]:
    """What changed since the certificate, one short phrase each."""
    changed = []
    files_then, files_now = certified.get("files") or {}, current["files"]
    changed += [
        p for p in sorted({*files_then, *files_now}) if files_then.get(p) != files_now.get(p)
    ]
    if certified.get("config_sha256") != current["config_sha256"]:
        changed.append("resolved model config")
    versions_then, versions_now = certified.get("versions") or {}, current["versions"]
    changed += [
        f"{p} {versions_then.get(p)} -> {versions_now.get(p)}"
        for p in sorted({*versions_then, *versions_now})
        if versions_then.get(p) != versions_now.get(p)
    ]
    pins_then, pins_now = certified.get("stack_pins") or {}, current.get("stack_pins") or {}
    if pins_then != pins_now:
        changed.append(f"stack pins {pins_then or 'none'} -> {pins_now or 'none'}")
    return changed


# A certificate's own numbers, judged again by this code's tolerances. Model outputs are
# probabilities (every workload ends in softmax or sigmoid), so the forward check's
# |a - b| <= atol + rtol * |b| allows at most atol + rtol.
MAX_PROBABILITY = 1.0


def problems(cert: dict[str, Any]) -> list[str]:
    """What the certificate's figures fail, by the tolerances this code applies (empty: they
    pass). Raises KeyError, TypeError or ValueError for a certificate without its figures."""
    from frameworks import layer_parity, optimizer_formula, tolerances

    found = []
    params = cert["params"]
    if len(set(params.values())) > 1:
        found.append(f"parameter counts differ: {params}")
    expected = cert.get("expected_params")
    if expected and any(count != expected for count in params.values()):
        found.append(f"parameter counts {params} != the original {expected}")
    if float(cert["weight_roundtrip_max_abs_diff"]) != 0.0:
        found.append("weights changed on the canonical round trip")
    forward_bound = tolerances.FORWARD_ATOL + tolerances.FORWARD_RTOL * MAX_PROBABILITY
    if not float(cert["forward_max_abs_diff"]) <= forward_bound:
        found.append(
            f"forward outputs differ by {cert['forward_max_abs_diff']:.3g} "
            f"(bound {forward_bound:.3g})"
        )
    # The measured per-layer bound, judged again with this checkout's bound: a certificate
    # that lacks the figures for a model that names PARITY_LAYERS fails here.
    if layer_parity.parity_layers(cert["model"]):
        found += layer_parity.judge(cert["model"], cert.get("forward_layers") or {})
    opt, training = cert["optimizer"], cert["training"][tolerances.BASE]
    bound = tolerances.tight_bound(opt)
    if not float(training["weight_bound"]) <= bound * (1 + 1e-9):
        found.append(f"its weight bound {training['weight_bound']:.3g} is looser than {bound:.3g}")
    beyond, compared = int(training["weights_beyond_bound"]), int(training["weights_compared"])
    loss = float(training["loss_max_rel_diff"])
    allowed = tolerances.outlier_fraction(model_config(cert["model"]))
    if beyond > allowed * compared or not loss <= tolerances.TRAIN_RTOL:
        found.append(
            f"training: {beyond:,} of {compared:,} weights beyond the bound, losses {loss:.3g}"
        )
    if not float(training["lr_max_rel_diff"]) <= tolerances.SCHEDULE_RTOL:
        found.append(f"learning-rate schedules differ by {training['lr_max_rel_diff']:.3g}")
    if float(training.get("moving_variance_excess", 0.0)) > 0:
        found.append("BatchNorm moving variance beyond the unbiased update's reach")
    found += stochastic_problems(cert.get("stochastic"))
    apis = [registry.spec(name).api for name in params if name in registry.names()]
    if len(apis) > 1 and not optimizer_formula.same_math(opt, apis):
        found.append("the APIs' built-in optimizer formulas differ")
    return found


def stochastic_problems(figures: dict[str, Any] | None) -> list[str]:
    """What a certificate's stochastic figures (twinbench/parity/distributions.py) fail, judged
    again at the false-alarm rates of conf/equivalence/default.yaml: a p-value under its share
    of the family's alpha, a fixed or orthogonal tensor off, a dropout scale or an augmented
    image off, a validation pass that changed the probe. A certificate written before these
    checks has none, and fails none of them (its fingerprint makes it stale instead)."""
    if not figures:
        return []
    from omegaconf import OmegaConf

    conf = OmegaConf.to_container(OmegaConf.load(CONF_DIR / "equivalence" / "default.yaml"))
    found = []
    tensors = figures["init"]["tensors"]
    random = [t for t in tensors.values() if t["kind"] == "random"]
    alpha = conf["init"]["family_alpha"] / max(1, 3 * len(random))
    for key, t in tensors.items():
        if (
            (t["kind"] == "deterministic" and t["max_abs_diff"] != 0)
            or (
                t["kind"] == "orthogonal"
                and t["orthogonal_error"] > conf["init"]["orthogonal_atol"]
            )
            or (t["kind"] == "random" and min(t["ks_p"], t["mean_p"], t["var_p"]) < alpha)
        ):
            found.append(f"initial weights: {key} off the reference's ({t['kind']})")
    layers = figures["dropout"]["layers"]
    alpha = conf["dropout"]["family_alpha"] / max(1, len(layers))
    for layer in layers:
        if layer["binomial_p"] < alpha or layer["scale_error"] > conf["dropout"]["scale_rtol"]:
            found.append(f"dropout: {layer['side']} layer {layer['layer']} off its rate")
    # Attention dropout by effect (torch_native/stochastic.py): the variance ratio within the
    # configured tolerance of 1, or no variance at all where the layer declares no rate.
    rtol = conf["attention_dropout"]["variance_rtol"]
    attention = figures.get("attention_dropout") or {}
    sides = [("reference", attention.get("reference_layers", {}))]
    sides += [("backend", attention.get("layers", {}))]
    for side, key, layer in [(side, k, v) for side, found in sides for k, v in found.items()]:
        if (layer["rate"] == 0 and layer["observed_variance"] != 0) or (
            layer["rate"] > 0 and not abs(layer["variance_ratio"] - 1) <= rtol
        ):
            found.append(f"attention dropout: {side} layer {key} off its declared rate")
    for name, count in attention.get("calls", {}).items():
        if count == 0:
            found.append(f"dropout: backend layer {name} never runs in a training forward")
    # Each backend dropout site handed what a reference site is (twinbench/parity/dropout_inputs.py)
    rtol = conf["dropout"]["handed_rtol"]
    for name, site in sorted((figures.get("dropout_inputs") or {}).get("sites", {}).items()):
        if site.get("twin") is None or site.get("distance") is None or site["distance"] > rtol:
            found.append(f"dropout: backend layer {name} drops another tensor than the reference")
    alpha = conf["augment"]["family_alpha"] / 3
    for side, aug in figures["augment"].items():
        if aug and (
            aug["exact_fill_fraction"] < 1
            or min(aug["height_p"], aug["width_p"], aug["flip_p"]) < alpha
        ):
            found.append(f"augmentation: {side} off the config")
    # Where a side augments, its validation pass must have left the probe exactly as it was.
    for side, aug in figures["augment"].items():
        val = figures.get("validation", {}).get(side)
        if aug and not (
            val and val["unchanged_fraction"] == 1 and val["max_abs_diff"] == 0
            and val["images"] == val["expected_images"]
        ):  # fmt: skip
            found.append(f"validation: {side} augments (or was not checked)")
    return found


def verdict(cert: Any) -> tuple[str, str | None]:
    """("pass" | "fail" | "invalid", why) from a parsed certificate, never trusting its own
    `passed`: a certificate edited to pass, or cut short, reads "invalid"."""
    if not isinstance(cert, dict):
        return "invalid", "not a certificate (no JSON object)"
    try:
        found = problems(cert)
        claimed = cert["passed"]
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        return "invalid", f"incomplete ({type(exc).__name__}: {exc})"
    except OSError:  # a model this checkout does not have: its allowance cannot be read
        return "invalid", f"model {cert.get('model')!r} is not in this checkout"
    if claimed is True and found:
        return "invalid", "it says passed, but its figures fail: " + "; ".join(found)
    if claimed is True:
        return "pass", None
    return "fail", "; ".join(found) or "; ".join(map(str, cert.get("failures") or [])) or None
