"""How closely unmutated halves agree forward, over seeds: what the measured bounds of
frameworks/layer_parity.py are set from, and their false-alarm rate on this machine; and the same
for the attention-dropout check (draws.py, distributions.check_attention_dropout).

    python -m twinbench.parity.spread gpt imdb_transformer --seeds 20   # --backends A,B

Each backend runs in its own process (stages.run_stages_many), one thread, as parity's stage
does. For seed s the reference builds the model with seed s and exports its weights; every
backend (the reference too) predicts the probe batch and records PARITY_LAYERS' outputs from
those weights. Then each backend's attention-dropout probe runs once per seed (a fresh input and
fresh masks) on the model with its configured rates. Printed per model and backend: the largest
scaled error of any layer and of the output over the seeds, the bound (conf/equivalence/
default.yaml `forward`), how many seeds fail it (layers.judge), the attention dropout's variance
ratios and how many seeds fail that check: false alarms, since nothing is mutated.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

import numpy as np

from frameworks import layer_parity as layers
from frameworks.tolerances import PROBE, REFERENCE
from models.catalog import model_config
from twinbench.parity import distributions, draws, stages

LABEL = "spread"


def stage_model(
    backend: Any,
    framework: str,
    model_name: str,
    workdir: Path,
    reference: str = REFERENCE,
    seeds: int = 20,
) -> None:
    """Inside a stage process: `seeds` weight draws of the reference, each predicted here."""
    cfg = stages.without_dropout(model_config(model_name))
    x, _, _, cfg = stages._probe_and_batches(cfg, seed=0, workdir=workdir)
    out: dict[str, np.ndarray] = {}
    for seed in range(seeds):
        backend.fresh_session()
        backend.seed(seed)
        model = backend.build(model_name, cfg, "cpu")
        path = workdir / f"initial-{seed}.npz"
        if framework == reference:  # it leaves the weights every backend predicts from
            np.savez(path, **backend.export_weights(model, model_name))
        backend.import_weights(model, model_name, dict(np.load(path)))
        out[f"{seed}:probe_out"] = backend.predict(model, model_name, x[:PROBE])
        for key, value in layers.record(backend, model, model_name, x[:PROBE]).items():
            out[f"{seed}:{key}"] = value
    # Attention dropout by effect (draws.py), the rates configured: one model, a fresh input
    # and fresh masks per seed. Its figures travel as JSON, as in a parity stage.
    att = draws.settings()["attention_dropout"]
    backend.fresh_session()
    backend.seed(0)
    model = backend.build(model_name, draws.training_config(model_name, cfg), "cpu")
    for seed in range(seeds):
        backend.seed(seed)
        found = backend.attention_dropout_probe(
            model, model_name, att["tokens"], att["draws"], seed
        )
        for i, (name, rate, figures) in enumerate(found or []):
            key = f"{seed}:{draws.PREFIX}attention_dropout:{i}:{name}"
            out[key] = np.array(json.dumps([rate, figures]))
    np.savez(workdir / f"{framework}.npz", **out)


def _of_seed(arrays: dict[str, np.ndarray], seed: int) -> dict[str, np.ndarray]:
    head = f"{seed}:"
    return {k[len(head) :]: v for k, v in arrays.items() if k.startswith(head)}


def measure(
    model_names: list[str], seeds: int, backends: list[str] | None, reference: str = REFERENCE
) -> dict[str, dict[str, Any]]:
    """model -> backend -> the spread's figures over `seeds` weight draws."""
    backends = backends or stages.other_backends(reference)
    variants = {m: {LABEL: {b: {} for b in [reference, *backends]}} for m in model_names}
    outputs = stages.run_stages_many(variants, reference, stage_flags=("--spread", str(seeds)))
    result: dict[str, dict[str, Any]] = {}
    every = [reference, *backends]
    for model_name in model_names:
        result[model_name] = {}
        ref = outputs[model_name][reference]
        for backend in backends:
            per_seed = [
                layers.compare(
                    model_name, _of_seed(ref, s), _of_seed(outputs[model_name][backend], s)
                )
                for s in range(seeds)
            ]
            worst_layers = [max(f["layers"].values(), default=0.0) for f in per_seed]
            result[model_name][backend] = {
                "seeds": seeds,
                "layer_roundings_max": max(worst_layers),
                "layer_roundings_median": float(np.median(worst_layers)),
                "per_layer_max": {
                    n: max(f["layers"][n] for f in per_seed)
                    for n in layers.compared_layers(model_name)
                },
                "output_max_abs_diff": max(f["output_max_abs_diff"] for f in per_seed),
                "output_roundings_max": max(f["output"] for f in per_seed),
                "bound": layers.bound(model_name),
                "false_alarms": sum(bool(layers.judge(model_name, f)) for f in per_seed),
            }
        for backend in every:  # attention dropout: each backend on its own, the reference too
            checked = [
                distributions.check_attention_dropout(_of_seed(outputs[model_name][backend], s))
                for s in range(seeds)
            ]
            ratios = [
                layer["variance_ratio"]
                for figures, _ in checked
                for layer in figures["layers"].values()
                if layer["rate"] > 0
            ]
            result[model_name].setdefault(backend, {})["attention_dropout"] = {
                "layers_checked": sum(len(figures["layers"]) for figures, _ in checked),
                "variance_ratio_range": [min(ratios), max(ratios)] if ratios else None,
                "false_alarms": sum(bool(failures) for _, failures in checked),
            }
    return result


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m twinbench.parity.spread")
    parser.add_argument("models", nargs="+")
    parser.add_argument("--seeds", type=int, default=20)
    parser.add_argument("--backends", default=None, help="comma-separated; default all")
    parser.add_argument("--reference", default=REFERENCE)
    parser.add_argument("--json", default=None, help="also write the figures to this file")
    args = parser.parse_args(argv)
    chosen = args.backends.split(",") if args.backends else None
    result = measure(args.models, args.seeds, chosen, args.reference)
    for model_name, per_backend in result.items():
        for backend, f in per_backend.items():
            att = f["attention_dropout"]
            print(
                f"{model_name:<17} {backend:<12} attention dropout over {args.seeds} seeds: "
                f"{att['layers_checked']} layers checked, variance ratio in "
                f"{att['variance_ratio_range']}, false alarms {att['false_alarms']}/{args.seeds}"
            )
            if "layer_roundings_max" not in f:
                continue
            print(
                f"{model_name:<17} {backend:<12} over {f['seeds']} seeds: layers up to "
                f"{f['layer_roundings_max']:.3g} roundings (median of seeds' worst "
                f"{f['layer_roundings_median']:.3g}), output up to "
                f"{f['output_roundings_max']:.3g} ({f['output_max_abs_diff']:.2g} absolute); "
                f"bound {f['bound']:.3g}; false alarms {f['false_alarms']}/{f['seeds']}"
            )
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
