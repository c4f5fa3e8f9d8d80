"""One backend's stage of bfloat16 parity, inside its stage process (stages.stage with
`--precision bfloat16`): from the reference's canonical weights, the float32 forward pass, then
for each variant (label -> backend -> mutation, `{}` unmutated) a fresh bfloat16 model's traced
forward pass and loss (the adapters' precision_probe modules). Writes `<backend>.npz`:
"float32:probs", and per variant "<label>:probs", "<label>:loss", "<label>:trace" (JSON: the
product ops, the loss's and the variables' dtypes).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import numpy as np

from frameworks.precision_probe import probe
from frameworks.tolerances import PROBE, REFERENCE
from models.catalog import model_config
from twinbench.parity import stages


def stage_model(
    backend: Any,
    framework: str,
    model_name: str,
    workdir: Path,
    reference: str = REFERENCE,
    precision: str = "bfloat16",
) -> None:
    variants = json.loads((workdir / "variants.json").read_text())
    cfg = stages.without_dropout(model_config(model_name))
    x, y, _, cfg = stages._probe_and_batches(cfg, seed=0, workdir=workdir)
    x, y = x[:PROBE], y[:PROBE]
    backend.set_precision("float32")
    model = backend.build(model_name, cfg, "cpu")
    if framework == reference:  # it leaves the weights every backend starts from
        np.savez(workdir / "initial.npz", **backend.export_weights(model, model_name))
    initial = dict(np.load(workdir / "initial.npz"))
    backend.import_weights(model, model_name, initial)
    out: dict[str, np.ndarray] = {"float32:probs": backend.predict(model, model_name, x)}
    for label, specs in variants.items():
        if framework not in specs:
            continue
        # A fresh model per variant: a mutation changes the model it is applied to. Keras'
        # clear_session resets the dtype policy too, so the precision is set after it.
        backend.fresh_session()
        backend.seed(0)
        backend.set_precision(precision)
        model = backend.build(model_name, cfg, "cpu")
        backend.import_weights(model, model_name, initial)
        found = probe(backend, model, model_name, cfg, x, y, specs[framework])
        out[f"{label}:probs"] = np.asarray(found["probs"], dtype=np.float32)
        out[f"{label}:loss"] = np.array(found["loss"])
        trace = {k: found[k] for k in ("ops", "loss_dtype", "variable_dtypes")}
        out[f"{label}:trace"] = np.array(json.dumps(trace))
    backend.fresh_session()
    backend.set_precision("float32")  # the next model's stage starts as a float32 one
    np.savez(workdir / f"{framework}.npz", **out)
