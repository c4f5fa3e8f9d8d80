"""In one process: Keras fit on numpy arrays (the bare loop) vs fit on twinbench's PyDataset vs
twinbench's own train(). Output kept in measurements/2026-11-30/keras-feed-bilstm.txt.

    python -m benchmarks.diagnostics.keras_feed bilstm 60 4    # model, steps, rounds
"""

from __future__ import annotations

import statistics
import sys
import time

from benchmarks.diagnostics.budget import tensorflow_workload


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    name, steps, rounds = args[0], int(args[1]), int(args[2])
    b, cfg, data = tensorflow_workload(name)  # before the imports below load TensorFlow
    import keras
    import numpy as np

    from frameworks.base import TrainPlan
    from frameworks.keras.feeding import SharedOrderBatches
    from frameworks.timing import RunClock

    bs = cfg["batch_size"]
    n = steps * bs
    x, y = data.x_train[:n], data.y_train[:n]
    b.apply_settings({})
    b.seed(0)

    def make():
        m = b.build(name, cfg, "cpu")
        b.compile(m, cfg)
        return m

    ma, mb = make(), make()
    plan = TrainPlan(
        epochs=2,
        batch_size=bs,
        steps_per_epoch=steps,
        eval_steps=0,
        orders=np.stack([np.random.default_rng(i).permutation(n) for i in range(2)]),
        seed=0,
        device="cpu",
        validate=False,
    )

    class Clock(keras.callbacks.Callback):
        """Each epoch's wall time, as the bare loop's epoch clock takes it."""

        def __init__(self):
            super().__init__()
            self.t: list[float] = []

        def on_epoch_begin(self, epoch, logs=None):
            self.s = time.perf_counter()

        def on_epoch_end(self, epoch, logs=None):
            self.t.append(time.perf_counter() - self.s)

    res: dict[str, list[float]] = {"arrays": [], "pydataset": [], "twinbench_train": []}
    for _ in range(rounds):
        c = Clock()
        ma.fit(x, y, batch_size=bs, epochs=2, shuffle=True, verbose=0, callbacks=[c])
        res["arrays"].append(c.t[-1])
        c = Clock()
        feed = SharedOrderBatches(data, plan, cfg)
        mb.fit(feed, epochs=2, shuffle=False, verbose=0, callbacks=[c])
        res["pydataset"].append(c.t[-1])
        clock = RunClock()
        b.train(mb, cfg, data, plan, clock)
        res["twinbench_train"].append(clock.train_times_s()[-1])
    for k, v in res.items():
        print(name, k, " ".join(f"{t:.3f}" for t in v), f" median {statistics.median(v[1:]):.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
