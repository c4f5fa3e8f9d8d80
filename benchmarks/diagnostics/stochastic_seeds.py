"""How often the stochastic parity checks fail when nothing is wrong: one backend's draws at
several of its own seeds against one reference draw (docs/findings/2026-12-01-stochastic-parity.md).

    python -m benchmarks.diagnostics.stochastic_seeds mlp cifar10_cnn --backend torch --seeds 3-12

The reference's draws come from its draws-only parity stage (its own process); the backend draws
in this process at each seed (conf/equivalence/default.yaml's backend_seed, replaced per seed).
Prints each seed's failures and the smallest per-tensor p-value against its Bonferroni alpha.
"""

from __future__ import annotations

import argparse

from frameworks import get_backend, tolerances
from models.catalog import model_config
from twinbench.parity import distributions, draws, stages


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("models", nargs="+")
    parser.add_argument("--backend", default="torch")
    parser.add_argument("--seeds", default="3-12", help="first-last, inclusive")
    args = parser.parse_args()
    first, last = (int(s) for s in args.seeds.split("-"))
    backend = get_backend(args.backend)
    conf = draws.settings()  # cached: the per-seed edit below is what draw() reads
    for model in args.models:
        ref = stages.run_stages(model, {}, tolerances.REFERENCE, draws_only=True)
        cfg = model_config(model)
        failed = 0
        for seed in range(first, last + 1):
            conf["init"]["backend_seed"] = seed
            conf["augment"]["seed"] = seed
            mine = draws.draw(backend, model, cfg, reference=False)
            figures, failures = distributions.compare_all(ref[tolerances.REFERENCE], mine, cfg)
            ps = [
                min(t["ks_p"], t["mean_p"], t["var_p"])
                for t in figures["init"]["tensors"].values()
                if t["kind"] == "random"
            ]
            drop = [x["binomial_p"] for x in figures["dropout"]["layers"] if x["side"] == "backend"]
            failed += bool(failures)
            print(
                f"{model} {args.backend} seed {seed}: {'FAIL' if failures else 'pass'}  "
                f"init min p {min(ps):.3g} (alpha {figures['init']['per_test_alpha']:.2g})  "
                f"dropout min p {min(drop, default=1):.3g}  {failures}",
                flush=True,
            )
        print(f"{model}: {failed} of {last - first + 1} seeds failed", flush=True)


if __name__ == "__main__":
    main()
