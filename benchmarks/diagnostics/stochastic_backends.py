"""The stochastic parity checks alone (draws-only stages, no training), every backend against the
reference on each model: what kinds of tensors each model has, the smallest initial-weight
p-value, the dropout layers, and any failure (docs/findings/2026-12-01-stochastic-parity.md).

    python -m benchmarks.diagnostics.stochastic_backends            # every model
    python -m benchmarks.diagnostics.stochastic_backends mlp bilstm
"""

from __future__ import annotations

import sys

from frameworks import tolerances
from models.catalog import model_config, names
from twinbench.parity import distributions, stages


def main(models: list[str]) -> None:
    reference = tolerances.REFERENCE
    others = stages.other_backends()
    for model in models or names():
        variants = {"draws": {b: {} for b in [reference, *others]}}  # names the backends to run
        out = stages.run_stages(model, variants, reference, draws_only=True)
        for backend in others:
            figures, failures = distributions.compare_all(
                out[reference], out[backend], model_config(model)
            )
            tensors = figures["init"]["tensors"].values()
            kinds: dict[str, int] = {}
            for t in tensors:
                kinds[t["kind"]] = kinds.get(t["kind"], 0) + 1
            random_p = [min(t["ks_p"], t["mean_p"], t["var_p"]) for t in tensors if "ks_p" in t]
            aug = figures["augment"]["backend"]
            print(
                f"{model} {backend}: {'FAIL' if failures else 'pass'}  tensors {kinds}  "
                f"init min p {min(random_p, default=1):.3g} "
                f"(alpha {figures['init']['per_test_alpha']:.2g})  "
                f"dropout layers {len(figures['dropout']['layers']) // 2}  "
                + (
                    f"augment flips {aug['flip_fraction']:.3f} p {aug['flip_p']:.3g}, "
                    f"height p {aug['height_p']:.3g}, width p {aug['width_p']:.3g}  "
                    if aug
                    else ""
                )
                + str(failures),
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:])
