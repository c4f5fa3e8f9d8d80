"""The hand-written baseline: what a good engineer writes without twinbench.

    python -m benchmarks.bare_loop <backend> <model> <cpus> <steps> <epochs>

Same network (models/<name>.py), same data, same CPU budget, same optimizer (for gpt: AdamW
without decay on the tables, clipping at the configured global norm), and nothing else (no
augmentation: benchmarks/overhead.py turns twinbench's off for cifar10_cnn to match): Keras
trains with `model.fit(x, y, batch_size, epochs, shuffle=True)`, torch with a plain loop over
shuffled index batches. Only whole epochs are timed (one callback, or a clock read per epoch),
so this path has no per-step hooks, except in a pair that takes turns (benchmarks/turn_pairs.py),
where the harness' clock hands the turn over every few steps. Every Keras backend
(frameworks/registry.py, api "keras") runs the same Keras loop on its runtime. Prints one JSON
line (harness.report): {"epoch_s": [...], ...}.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from benchmarks import positional
from benchmarks.ports import harness
from twinbench.machine import cpu


def main(backend: str, model_name: str, cpus: int, steps: int, epochs: int) -> None:
    from frameworks import registry

    spec = registry.spec(backend)
    cpu.pin(cpu.choose_cores(cpus))
    os.environ.update(cpu.thread_environment(cpus, cpus))
    os.environ.update(spec.environment)  # Keras' runtime
    os.environ.update(spec.thread_variables(cpus, cpus))  # XLA's pool
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")
    from benchdata import cache, fill_arch, load
    from models.catalog import model_config

    cfg = model_config(model_name)
    # the data sets twinbench's runs keep between processes (benchdata/cache.py), untimed
    data = load(
        cfg["dataset"], "synthetic", 0, cfg.get("view"), synthetic_cache=cache.default_dir()
    )
    cfg = fill_arch(cfg, data)
    bs = cfg["batch_size"]
    x, y = data.x_train[: steps * bs], data.y_train[: steps * bs]
    module = __import__(f"models.{model_name}", fromlist=["x"])
    if spec.api == "torch":
        epoch_s = _torch(module, cfg, x, y, bs, epochs, cpus)
    else:
        epoch_s = _keras(backend, module, cfg, x, y, bs, epochs, cpus)
    harness.report(epoch_s, validates=False)  # training only: the bare loop never validates


@dataclass(frozen=True)
class BareTorch:
    """The bare loop's torch model, its optimizer and its training step on index batches of
    (x, y): the whole of its per-step work (benchmarks/diagnostics/subnormal_sites.py looks
    inside the model and the optimizer's state between steps)."""

    model: Any
    optimizer: Any
    step: Callable[[Any], None]


def torch_bare(module, cfg, x, y) -> BareTorch:
    """The bare loop's torch training: the network of models/<name>.py, its objective and its
    optimizer as conf/model names them, seeded as every run is."""
    import torch

    from frameworks.torch_native.backend import Objective
    from frameworks.torch_native.optimizers import make_optimizer

    torch.manual_seed(0)
    model = module.torch_model(**cfg["arch"])
    loss_fn = Objective.for_model(cfg)
    # AdamW (gpt) leaves the embedding tables undecayed: it tells them from kernels by identity
    tables = frozenset(id(m.weight) for m in model.modules() if isinstance(m, torch.nn.Embedding))
    optimizer, schedule = make_optimizer(model.parameters(), cfg["optimizer"], embeddings=tables)
    clip = cfg["optimizer"].get("clip_global_norm", 0.0)  # gpt: the norm over every gradient
    x, y = torch.from_numpy(x), torch.from_numpy(y)
    model.train()

    def step(idx) -> None:
        optimizer.zero_grad(set_to_none=True)
        loss = loss_fn(model(x[idx]), y[idx])
        loss.backward()
        if clip:
            torch.nn.utils.clip_grad_norm_(model.parameters(), clip)
        optimizer.step()
        if schedule is not None:
            schedule.step()

    return BareTorch(model, optimizer, step)


def _torch(module, cfg, x, y, bs, epochs, cpus) -> list[float]:
    import torch

    torch.set_num_threads(cpus)
    torch.set_num_interop_threads(cpus)
    step = torch_bare(module, cfg, x, y).step
    times = []
    clock = harness.TurnClock()  # perf_counter, less any waits for a partner's turns
    clock.begin()
    for _ in range(epochs):
        clock.epoch_begin()
        for idx in torch.randperm(len(x)).split(bs):
            step(idx)
            clock.tick()
        times.append(clock.epoch_end())
    clock.end()
    return times


def _keras(backend, module, cfg, x, y, bs, epochs, cpus) -> list[float]:
    import keras

    from frameworks import get_backend
    from frameworks.keras.common import KERAS_LOSS
    from frameworks.keras.optimizers import make_optimizer

    get_backend(backend).configure_threads(cpus, cpus)  # the runtime's own thread control
    keras.utils.set_random_seed(0)
    model = module.keras_model(**cfg["arch"])
    heads = cfg.get("loss_weights")  # textgen: one loss per head, weighted, the same labels
    loss = KERAS_LOSS[module.OUTPUT]
    model.compile(
        optimizer=make_optimizer(cfg["optimizer"]),
        loss={h: loss for h in heads} if heads else loss,
        loss_weights=heads,
        metrics={module.PRIMARY_OUTPUT: ["accuracy"]} if heads else ["accuracy"],
    )
    if heads:
        y = {h: y for h in heads}
    logger = harness.epoch_logger()  # epoch times; hands turns over in a pair that takes them
    model.fit(x, y, batch_size=bs, epochs=epochs, shuffle=True, verbose=0, callbacks=[logger])
    return logger.times


def parse(argv: list[str]) -> argparse.Namespace:
    p = positional.parser(__doc__)
    positional.add_backend(p)
    positional.add_model(p)
    positional.add_counts(p, {"cpus": None, "steps": None, "epochs": None})
    return p.parse_args(argv)


if __name__ == "__main__":
    a = parse(sys.argv[1:])
    main(a.backend, a.model, a.cpus, a.steps, a.epochs)
