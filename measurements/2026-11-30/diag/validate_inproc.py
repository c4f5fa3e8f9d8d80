"""In one process: twinbench's TF train() for bilstm with and without validation, alternating.

A diagnostic kept beside its figures (commands.sh), not project code. Run from the repository
root: PYTHONPATH=. .venv/bin/python measurements/2026-11-30/diag/validate_inproc.py bilstm 60 4
"""

# ruff: noqa: E402  (the CPU budget is applied before TensorFlow loads)
import os
import statistics
import sys

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
from frameworks.timing import RunClock
from models.catalog import model_config

b = get_backend("tensorflow")
b.configure_threads(2, 2)
cfg = model_config(name)
data = load(cfg["dataset"], "synthetic", 0, cfg.get("view"))
cfg = fill_arch(cfg, data)
bs = cfg["batch_size"]
b.apply_settings({"onednn": None, "xla": None, "steps_per_execution": 1, "flush_denormal": True})
b.seed(0)
m = b.build(name, cfg, "cpu")
orders = np.stack([np.random.default_rng(i).permutation(len(data.x_train)) for i in range(3)])
res = {True: [], False: []}
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
