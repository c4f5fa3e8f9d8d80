"""Does the 2017-formula RMSprop cost more than Keras' built-in? Both side by side, one process.

    python -m benchmarks.optimizer_step [model] [cpus] [steps] [rounds]    # default mlp 1 100 7

Builds the model once per optimizer, compiled as the benchmark compiles it (model.compile, then
train_on_batch through Keras' traced train step), warms each up, then alternates timed blocks of
`steps` steady steps, `rounds` times each, so machine load falls on both alike. Prints one JSON
line: the median seconds per step of each and their ratio (2017 / built-in). A ratio near 1 on a
busy machine means "no measurable cost"; rerun on an idle one before quoting a figure.
"""

from __future__ import annotations

import argparse
import json
import sys

from benchmarks import positional
from benchmarks.alternating_blocks import one_batch, time_alternating, warmed_steppers


def main(model_name: str = "mlp", cpus: int = 1, steps: int = 100, rounds: int = 7) -> dict:
    backend, cfg, x, y = one_batch("tensorflow", model_name, cpus)
    if cfg["optimizer"]["name"] != "rmsprop":
        raise SystemExit(
            f"{model_name} trains with {cfg['optimizer']['name']}: pick an RMSprop model"
        )
    opt = cfg["optimizer"]
    variants = {f: {**cfg, "optimizer": {**opt, "formula": f}} for f in ("builtin", "2017")}
    steppers = warmed_steppers(backend, model_name, variants, x, y, warmup=10)
    per_step, median = time_alternating(steppers, x, y, rounds, steps)
    return {
        "model": model_name,
        "cpus": cpus,
        "steps_per_block": steps,
        "rounds": rounds,
        "median_step_s": median,
        "ratio_2017_to_builtin": median["2017"] / median["builtin"],
        "blocks_s_per_step": per_step,
    }


def parse(argv: list[str]) -> argparse.Namespace:
    p = positional.parser(__doc__)
    positional.add_model(p, default="mlp")
    positional.add_counts(p, {"cpus": 1, "steps": 100, "rounds": 7})
    return p.parse_args(argv)


if __name__ == "__main__":
    a = parse(sys.argv[1:])
    print(json.dumps(main(a.model, a.cpus, a.steps, a.rounds)))
