"""What a backend draws at random, collected inside its parity stage (one framework per process):
fresh initial weights from its own generator, each dropout layer's training-mode output (alone,
and by its effect inside one training forward of the model), its
training-time augmentation of a probe batch, and (where it augments) the same probe batch as its
validation pass hands it to the network, which must leave it unaugmented. distributions.py
compares the draws; the settings (seeds, probe sizes, false-alarm rates) are
conf/equivalence/default.yaml.

Arrays are keyed "draw:<what>:..." so they travel in the stage's npz beside the training figures.
"""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import numpy as np

from models.catalog import model_config
from twinbench.paths import CONF_DIR

SETTINGS = CONF_DIR / "equivalence" / "default.yaml"
PREFIX = "draw:"


@cache
def settings() -> dict[str, Any]:
    """conf/equivalence/default.yaml as plain values."""
    from omegaconf import OmegaConf

    return OmegaConf.to_container(OmegaConf.load(SETTINGS), resolve=True)


def training_config(model_name: str, filled: dict[str, Any]) -> dict[str, Any]:
    """The model as a run trains it: the data's sizes of `filled` (parity's config, dropout off)
    with the configured dropout rates put back."""
    own = model_config(model_name)["arch"]
    arch = {k: (own[k] if "dropout" in k else v) for k, v in filled["arch"].items()}
    return {**filled, "arch": arch}


def coordinate_probe(n: int, side_h: int, side_w: int, channels: int) -> np.ndarray:
    """n identical NHWC images whose pixels name their own position: channel 0 holds row + 1,
    channel 1 column + 1 (0 is what a constant fill would write), any others 1. An augmented copy
    then tells, pixel by pixel, which source pixel it came from."""
    x = np.ones((n, side_h, side_w, channels), np.float32)
    x[..., 0] = np.arange(1, side_h + 1, dtype=np.float32)[:, None]
    x[..., 1] = np.arange(1, side_w + 1, dtype=np.float32)[None, :]
    return x


def draw(
    backend: Any,
    model_name: str,
    cfg: dict[str, Any],
    reference: bool,
    x: np.ndarray | None = None,
    weights: Path | None = None,
) -> dict[str, Any]:
    """Inside a stage: the reference draws initial weights at two seeds (a tensor equal in both
    is deterministic), any other backend at its own seed; then the dropout and augmentation
    probes; with a probe batch `x`, each dropout layer's effect in a training forward of its
    first `forward_rows` rows. `cfg` is the training configuration (training_config).

    `weights`: the npz of initial weights every half of the certificate shares (the reference
    writes it when it is not there yet): the training forward runs on them, so that each dropout
    site of either half is handed the same tensor as its twin (parity/dropout_inputs.py)."""
    conf = settings()
    seeds = conf["init"]["reference_seeds"] if reference else [conf["init"]["backend_seed"]]
    out: dict[str, Any] = {}
    model = None
    for i, seed in enumerate(seeds):
        backend.seed(seed)
        model = backend.build(model_name, cfg, "cpu")
        for key, value in backend.export_weights(model, model_name).items():
            out[f"{PREFIX}init:{i}:{key}"] = np.array(value, copy=True)
    backend.seed(seeds[0])
    for i, (name, rate, values) in enumerate(
        backend.dropout_probe(model, conf["dropout"]["probe_units"])
    ):
        out[f"{PREFIX}dropout:{i}:{name}"] = np.array(rate)
        out[f"{PREFIX}dropout_out:{i}:{name}"] = values.astype(np.float32)
    # Every dropout layer with a rate must run, and drop at its rate, in a training forward on a
    # probe batch `x` (by effect: a layer called with training=False runs but drops nothing).
    if x is not None:
        if weights is not None:
            if reference and not weights.exists():
                np.savez(weights, **backend.export_weights(model, model_name))
            backend.import_weights(model, model_name, dict(np.load(weights)))
        rows = conf["dropout"]["forward_rows"]
        out.update(in_forward_arrays(backend.dropout_in_forward(model, x[:rows])))
    # Attention dropout by its effect on the kernel that runs (a fused kernel may ignore the
    # rate its Dropout module holds, which the layer probe above cannot see).
    att = conf["attention_dropout"]
    found = backend.attention_dropout_probe(
        model, model_name, att["tokens"], att["draws"], att["seed"]
    )
    for i, (name, rate, figures) in enumerate(found or []):
        out[f"{PREFIX}attention_dropout:{i}:{name}"] = np.array(json.dumps([rate, figures]))
    spec = cfg.get("augment")
    if spec:
        h, w, c = (cfg["arch"][k] for k in ("side", "side", "channels"))
        x = coordinate_probe(conf["augment"]["probe_images"], h, w, c)
        augmented = backend.augment_probe(cfg, x, conf["augment"]["seed"])
        if augmented is not None:  # absent: distributions.check_augment says it is missing
            out[f"{PREFIX}augment"] = augmented
        # Validation must see the very pixels it was given (distributions.check_validation).
        out[f"{PREFIX}validation"] = backend.validation_probe(cfg, x)
    return out


def in_forward_arrays(seen: dict[str, dict[str, Any]]) -> dict[str, np.ndarray]:
    """A training forward's per-site figures (a backend's dropout_in_forward) as the stage's npz
    holds them, the form every check of them reads."""
    return {f"{PREFIX}dropout_in_forward:{k}": np.array(json.dumps(v)) for k, v in seen.items()}


def section(arrays: dict[str, Any], what: str) -> dict[str, Any]:
    """The draws of one kind ("init:0", "dropout", "dropout_out", "augment"), their keys without
    the prefix."""
    head = f"{PREFIX}{what}"
    return {k[len(head) + 1 :]: v for k, v in arrays.items() if k.startswith(head + ":")}
