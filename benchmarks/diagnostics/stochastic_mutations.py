"""The stochastic checks' failures under the one-line mutations tests/test_stochastic_parity.py
makes on torch's side, printed with their figures (docs/findings/2026-12-01-stochastic-parity.md).

    python -m benchmarks.diagnostics.stochastic_mutations
"""

from __future__ import annotations

from frameworks import get_backend, tolerances
from models.catalog import model_config
from twinbench.parity import distributions, draws, stages

SIDE = "torch"
# label -> (model, arch change, augment change, keep Keras' initializers)
MUTATIONS = {
    "unmutated mlp": ("mlp", {}, None, True),
    "mlp dropout 0.2 -> 0.25": ("mlp", {"dropout": 0.25}, None, True),
    "mlp torch's default initialiser": ("mlp", {}, None, False),
    "unmutated cifar10_cnn": ("cifar10_cnn", {}, None, True),
    "cifar10_cnn no flip": ("cifar10_cnn", {}, {"horizontal_flip": False}, True),
    "cifar10_cnn width shift 0.1 -> 0.2": ("cifar10_cnn", {}, {"width_shift": 0.2}, True),
}


def main() -> None:
    import models.torch_init

    keras_init = models.torch_init.keras_init_
    backend = get_backend(SIDE)
    references = {}
    for label, (model, arch, augment, keras_style) in MUTATIONS.items():
        if model not in references:
            references[model] = stages.run_stages(model, {}, tolerances.REFERENCE, draws_only=True)[
                tolerances.REFERENCE
            ]
        cfg = model_config(model)
        mine = {**cfg, "arch": {**cfg["arch"], **arch}}
        if augment:
            mine["augment"] = {**cfg["augment"], **augment}
        models.torch_init.keras_init_ = keras_init if keras_style else (lambda module: module)
        found = draws.draw(backend, model, mine, reference=False)
        failures = distributions.compare_all(references[model], found, cfg)[1]
        print(f"{label}: {len(failures)} failures", flush=True)
        for failure in failures:
            print(f"    {failure}", flush=True)
    models.torch_init.keras_init_ = keras_init


if __name__ == "__main__":
    main()
