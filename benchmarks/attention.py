"""Fused against explicit attention (`model.arch.attention`), one backend, side by side in one
process.

    python -m benchmarks.attention BACKEND [model] [cpus] [steps] [rounds]
    # default model gpt, 1 cpu, 5 steps a block, 5 rounds

Builds the model once per kernel through the backend's own make_step (the training step parity
runs), warms each up, then alternates timed blocks of `steps` steps, `rounds` times each, so
machine load falls on both alike. Prints one JSON line: the median seconds per step of each and
their ratio (explicit / fused). Quote the ratio, not the absolute times.
"""

from __future__ import annotations

import argparse
import json
import sys

from benchmarks import positional
from benchmarks.alternating_blocks import one_batch, time_alternating, warmed_steppers


def main(backend_name: str, model_name: str = "gpt", cpus: int = 1, steps: int = 5,
         rounds: int = 5) -> dict:  # fmt: skip
    backend, cfg, x, y = one_batch(backend_name, model_name, cpus)
    variants = {k: {**cfg, "arch": {**cfg["arch"], "attention": k}} for k in ("fused", "explicit")}
    steppers = warmed_steppers(backend, model_name, variants, x, y, warmup=3)
    per_step, median = time_alternating(steppers, x, y, rounds, steps)
    return {
        "backend": backend_name,
        "model": model_name,
        "cpus": cpus,
        "steps_per_block": steps,
        "rounds": rounds,
        "median_step_s": median,
        "ratio_explicit_to_fused": median["explicit"] / median["fused"],
        "blocks_s_per_step": per_step,
    }


def parse(argv: list[str]) -> argparse.Namespace:
    p = positional.parser(__doc__)
    positional.add_backend(p)
    positional.add_model(p, default="gpt")
    positional.add_counts(p, {"cpus": 1, "steps": 5, "rounds": 5})
    return p.parse_args(argv)


if __name__ == "__main__":
    a = parse(sys.argv[1:])
    print(json.dumps(main(a.backend, a.model, a.cpus, a.steps, a.rounds)))
