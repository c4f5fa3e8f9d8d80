"""One fresh process: twinbench's TF train() for a model, with or without validation; prints the
three epochs' training times. Alternated process by process by the loop in commands.sh.

A diagnostic kept beside its figures (commands.sh), not project code. Run from the repository
root: PYTHONPATH=. .venv/bin/python measurements/2026-11-30/diag/fresh_validate.py bilstm 60 1
(last argument: 1 validate, 0 not)
"""

# ruff: noqa: E402  (the CPU budget is applied before TensorFlow loads)
import os
import sys

from twinbench.machine import cpu

cpu.pin(cpu.choose_cores(2))
os.environ.update(cpu.thread_environment(2, 2))
os.environ["TF_CPP_MIN_LOG_LEVEL"] = "2"
name, steps, validate = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "1"
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
b.apply_settings({"onednn": None, "xla": None, "steps_per_execution": 1, "flush_denormal": True})
b.seed(0)
m = b.build(name, cfg, "cpu")
orders = np.stack([np.random.default_rng(i).permutation(len(data.x_train)) for i in range(3)])
plan = TrainPlan(
    epochs=3, batch_size=cfg["batch_size"], steps_per_epoch=steps,
    eval_steps=steps if validate else 0, orders=orders, seed=0, device="cpu", validate=validate,
)  # fmt: skip
clock = RunClock()
b.train(m, cfg, data, plan, clock)
times = " ".join(f"{t:.3f}" for t in clock.train_times_s())
print("validate" if validate else "no-validation", times)
