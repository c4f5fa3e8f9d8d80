"""Minor page faults a training step, twinbench's torch run against the bare loop's, each alone
in a fresh process under glibc's default allocator: where a step's buffers are mapped afresh
each step, every page of them faults in again.

    python measurements/2026-12-07/bare-allocator/faults.py --models mlp tl_mlp --steps 70 --runs 3

twinbench: run.py with one epoch of `--steps` steps, its record's
resources.minor_faults_training_steps over the steps. The bare loop: benchmarks/bare_loop.py's
step (torch_bare), the same steps over the same number of rows, getrusage around them. The two
take turns, run by run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

BARE = """
import json, resource, sys, torch
from benchmarks import bare_loop
from benchdata import cache, fill_arch, load
from models.catalog import model_config
from twinbench.machine import cpu
model, cpus, steps = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
cpu.pin(cpu.choose_cores(cpus)); torch.set_num_threads(cpus)
cfg = model_config(model)
data = load(cfg["dataset"], "synthetic", 0, cfg.get("view"), synthetic_cache=cache.default_dir())
cfg = fill_arch(cfg, data); bs = cfg["batch_size"]
x, y = data.x_train[: steps * bs], data.y_train[: steps * bs]
module = __import__(f"models.{model}", fromlist=["x"])
step = bare_loop.torch_bare(module, cfg, x, y).step
before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
for idx in torch.randperm(len(x)).split(bs):
    step(idx)
after = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
print(json.dumps({"faults_per_step": (after - before) / steps}))
"""


def twinbench(model: str, cpus: int, steps: int) -> float:
    with tempfile.TemporaryDirectory() as run_dir:
        subprocess.run(
            [sys.executable, "run.py", "backend=torch", f"model={model}", f"cpus={cpus}",
             "epochs=1", f"max_steps={steps}", "measure.peak_probe=false", "quiet=true",
             f"hydra.run.dir={run_dir}"],
            check=True, capture_output=True,
        )  # fmt: skip
        record = json.loads((Path(run_dir) / "result.json").read_text())
    return record["resources"]["minor_faults_training_steps"] / steps


def bare(model: str, cpus: int, steps: int) -> float:
    out = subprocess.run(
        [sys.executable, "-c", BARE, model, str(cpus), str(steps)],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])["faults_per_step"]


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--models", nargs="+", default=["mlp", "tl_mlp"])
    p.add_argument("--cpus", type=int, default=2)
    p.add_argument("--steps", type=int, default=70)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    print("model     run  twinbench faults a step  bare loop faults a step")
    for model in a.models:
        for i in range(a.runs):
            t = twinbench(model, a.cpus, a.steps)
            b = bare(model, a.cpus, a.steps)
            print(f"{model:<9} {i + 1:>3}  {t:>23.0f}  {b:>23.0f}", flush=True)


if __name__ == "__main__":
    main()
