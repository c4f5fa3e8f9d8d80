"""One fresh process: twinbench's TF train() for a model, with or without validation; prints the
three epochs' training times. Alternated process by process by the loop in
measurements/2026-11-30/commands.sh (output: fresh-validate-bilstm.txt there).

    python -m benchmarks.diagnostics.fresh_validate bilstm 60 1    # last argument: 1 validate
"""

from __future__ import annotations

import sys

from benchmarks.diagnostics.budget import pin_two_cores


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    name, steps, validate = args[0], int(args[1]), args[2] == "1"
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
    b.apply_settings(
        {"onednn": None, "xla": None, "steps_per_execution": 1, "flush_denormal": True}
    )
    b.seed(0)
    m = b.build(name, cfg, "cpu")
    orders = np.stack([np.random.default_rng(i).permutation(len(data.x_train)) for i in range(3)])
    plan = TrainPlan(
        epochs=3, batch_size=cfg["batch_size"], steps_per_epoch=steps,
        eval_steps=steps if validate else 0, orders=orders, seed=0, device="cpu",
        validate=validate,
    )  # fmt: skip
    clock = RunClock()
    b.train(m, cfg, data, plan, clock)
    times = " ".join(f"{t:.3f}" for t in clock.train_times_s())
    print("validate" if validate else "no-validation", times)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
