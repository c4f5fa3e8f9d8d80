"""In one process: Keras fit on numpy arrays (the bare loop) vs fit on twinbench's PyDataset.

A diagnostic kept beside its figures (keras-feed-bilstm.txt), not project code. Run from the
repository root:
    PYTHONPATH=. .venv/bin/python measurements/2026-11-30/diag/keras_feed.py bilstm 60 4
"""

# ruff: noqa: E402  (the CPU budget is applied before TensorFlow loads)

import os
import statistics
import sys
import time

from twinbench.machine import cpu

cpu.pin(cpu.choose_cores(2))
os.environ.update(cpu.thread_environment(2, 2))
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
name = sys.argv[1]
steps = int(sys.argv[2])
rounds = int(sys.argv[3])
import numpy as np

from benchdata import fill_arch, load
from frameworks import get_backend
from frameworks.base import TrainPlan
from frameworks.keras.common import SharedOrderBatches
from frameworks.timing import RunClock
from models.catalog import model_config

b = get_backend("tensorflow")
b.configure_threads(2, 2)
import keras

cfg = model_config(name)
data = load(cfg["dataset"], "synthetic", 0, cfg.get("view"))
cfg = {**fill_arch(cfg, data), "augment": None}
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
    def __init__(s):
        super().__init__()
        s.t = []

    def on_epoch_begin(s, e, logs=None):
        s.s = time.perf_counter()

    def on_epoch_end(s, e, logs=None):
        s.t.append(time.perf_counter() - s.s)


res = {"arrays": [], "pydataset": [], "twinbench_train": []}
for _ in range(rounds):
    c = Clock()
    ma.fit(x, y, batch_size=bs, epochs=2, shuffle=True, verbose=0, callbacks=[c])
    res["arrays"].append(c.t[-1])
    c = Clock()
    mb.fit(SharedOrderBatches(data, plan, cfg), epochs=2, shuffle=False, verbose=0, callbacks=[c])
    res["pydataset"].append(c.t[-1])
    clock = RunClock()
    b.train(mb, cfg, data, plan, clock)
    res["twinbench_train"].append(clock.train_times_s()[-1])
for k, v in res.items():
    print(name, k, " ".join(f"{t:.3f}" for t in v), f" median {statistics.median(v[1:]):.3f}")
