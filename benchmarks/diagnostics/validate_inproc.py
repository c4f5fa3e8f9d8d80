"""In one process: twinbench's TF train() for a model with and without validation, alternating.

python -m benchmarks.diagnostics.validate_inproc bilstm 60 4    # model, steps, rounds
"""

from __future__ import annotations

import statistics
import sys

from benchmarks.diagnostics.budget import pin_two_cores


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    name, steps, rounds = args[0], int(args[1]), int(args[2])
    pin_two_cores()  # before TensorFlow loads, hence the imports below
    import numpy as np

    from benchdata import fill_arch, load
    from frameworks import get_backend
    from frameworks.base import TrainPlan
    from frameworks.timing import RunClock
    from models.catalog import model_config

    b = get_backend("tensorflow")
    b.configure_threads(2, 2)
    cfg = model_config(name)
    data = load(cfg["dataset"], "synthetic", 0, cfg.get("view"))
    cfg = fill_arch(cfg, data)
    bs = cfg["batch_size"]
    b.apply_settings(
        {"onednn": None, "xla": None, "steps_per_execution": 1, "flush_denormal": True}
    )
    b.seed(0)
    m = b.build(name, cfg, "cpu")
    orders = np.stack([np.random.default_rng(i).permutation(len(data.x_train)) for i in range(3)])
    res: dict[bool, list[float]] = {True: [], False: []}
    for r in range(rounds):
        for v in (False, True) if r % 2 == 0 else (True, False):
            plan = TrainPlan(
                epochs=3,
                batch_size=bs,
                steps_per_epoch=steps,
                eval_steps=steps if v else 0,
                orders=orders,
                seed=0,
                device="cpu",
                validate=v,
            )
            clock = RunClock()
            b.train(m, cfg, data, plan, clock)
            res[v].append(statistics.median(clock.train_times_s()[1:]))
    for v, t in res.items():
        print(
            name,
            "validate" if v else "no validation",
            " ".join(f"{x:.3f}" for x in t),
            f"median {statistics.median(t):.3f}",
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
