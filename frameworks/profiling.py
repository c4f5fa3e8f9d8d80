"""Per-layer profiles: each framework's own profiler over a window of steady steps run AFTER the
timed training (so it never touches a timed step), ops mapped to the model's canonical layer
names (models/<name>.py LAYERS: fc1, conv2, lstm, ...) plus optimizer, loss, data and other.

Figures are milliseconds of op time per step, summed over threads (intra-op work in parallel
counts once per op, not per thread; inter-op ops running side by side both count), so the two
frameworks compare like with like. `wall_ms` is the wall time per profiled step; `host_other_ms`
is wall time not covered by ops (dispatch, Python, graph executor), never below zero.

- torch: torch.profiler; forward hooks open a record_function range per top-level module, and
  backward ops are matched to their forward op by the autograd sequence number the profiler
  records; the optimizer's step and zero_grad carry torch's own "Optimizer." ranges.
- TensorFlow: tf.profiler writes XPlane; every op event is named "<scopes>/<op>:<type>", the
  scope after the model's name is the Keras layer ("conv2_1" for layer conv2), gradient ops
  carry the same scopes under "gradient_tape/", optimizer ops the optimizer's name.
Activations fused into a Keras layer (Dense(activation="relu")) belong to that layer; torch's
separate ReLU modules are folded into the layer before them so the rows compare.

A model may name more layers for the profile alone (PROFILE_LAYERS: weightless ones such as
gpt's GELU and tied head) and group its layers (LAYER_GROUPS: the transformers' attention, MLP,
LayerNorm, embedding/head, models/transformer.py); the record then carries each profiled
layer's group and the groups' sums, so a report groups by what the run itself said.
"""

from __future__ import annotations

import re
import tempfile
import time
from collections import defaultdict
from typing import Any

import models
from frameworks import registry

OTHER_LAYERS = "pool/dropout/reshape"
KERAS_SUFFIX = re.compile(r"_\d+$")


def _layers(model_name: str) -> dict[str, str]:
    """The layer names the profile reports: the model's LAYERS and its profile-only names."""
    spec = models.get(model_name)
    return spec.LAYERS | getattr(spec, "PROFILE_LAYERS", {})


def layer_groups(model_name: str, ops_ms: dict[str, float]) -> dict[str, Any]:
    """{layer: group} for the profiled layers of a model with LAYER_GROUPS, and each group's ms
    per step; {} for other models."""
    known = getattr(models.get(model_name), "LAYER_GROUPS", None)
    if not known:
        return {}
    found = {layer: known[layer] for layer in ops_ms if layer in known}
    sums: dict[str, float] = defaultdict(float)
    for layer, group in found.items():
        sums[group] += ops_ms[layer]
    return {"layer_groups": found, "groups_ms": dict(sorted(sums.items()))}


def _group_of_torch_child(name: str, current: str | None, layers: dict) -> str:
    if name in layers:
        return name
    if name.startswith("relu") and current:
        return current
    return OTHER_LAYERS


def profile_torch(backend, model, model_cfg, data, plan, steps: int, warmup: int) -> dict:
    import torch
    from torch.profiler import ProfilerActivity, profile, record_function

    layers = _layers(model_cfg["name"])
    step, objective = backend.tensor_step(model, model_cfg)
    groups, current, handles, open_ranges = {}, None, [], []
    for name, child in model.named_children():
        current = name if name in layers else current
        groups[child] = _group_of_torch_child(name, current, layers)
    groups[objective.loss] = "loss"

    def enter(module, *_):
        rf = record_function(f"layer::{groups[module]}")
        rf.__enter__()
        open_ranges.append(rf)

    def leave(module, *_):
        open_ranges.pop().__exit__(None, None, None)

    for module in groups:
        handles.append(module.register_forward_pre_hook(enter))
        handles.append(module.register_forward_hook(leave))
    x_all, y_all = torch.from_numpy(data.x_train), torch.from_numpy(data.y_train)
    order = torch.from_numpy(plan.orders[0])
    bs, n_batches = plan.batch_size, max(1, len(order) // plan.batch_size)

    def one(i: int) -> None:
        with record_function("layer::data"):
            idx = order[(i % n_batches) * bs : (i % n_batches + 1) * bs]
            x, y = x_all[idx], y_all[idx]
        step(x, y)

    try:
        for i in range(warmup):
            one(i)
        with profile(activities=[ProfilerActivity.CPU]) as prof:
            t0 = time.perf_counter_ns()
            for i in range(steps):
                one(warmup + i)
            wall = (time.perf_counter_ns() - t0) / 1e6
    finally:
        for h in handles:
            h.remove()
    return _torch_groups(prof.events(), steps) | {"wall_ms": wall / steps}


def _torch_groups(events, steps: int) -> dict:
    """Self CPU time of every event, attributed to a layer through its ancestors."""
    seq_to_group: dict[int, str] = {}

    def label_of(e) -> str | None:
        while e is not None:
            if e.name.startswith("layer::"):
                return e.name.removeprefix("layer::")
            if e.name.startswith("Optimizer."):
                return "optimizer"
            e = e.cpu_parent
        return None

    for e in events:  # forward ops: their sequence numbers name their layer
        label = label_of(e)
        if label and getattr(e, "sequence_nr", -1) >= 0:
            seq_to_group.setdefault(e.sequence_nr, label)
    totals: dict[str, float] = defaultdict(float)
    for e in events:
        label = label_of(e)
        if label is None:
            node = e
            while node is not None and not node.name.startswith("autograd::engine::"):
                node = node.cpu_parent
            if node is not None:  # a backward op: the layer of the forward op it belongs to
                label = seq_to_group.get(getattr(node, "sequence_nr", -1), "other")
        totals[label or "other"] += e.self_cpu_time_total / 1e3  # us -> ms
    return {"ops_ms": {k: v / steps for k, v in sorted(totals.items())}}


def profile_tensorflow(backend, model, model_cfg, data, plan, steps: int, warmup: int) -> dict:
    import tensorflow as tf
    from tensorflow.tsl.profiler.protobuf import xplane_pb2

    layers = _layers(model_cfg["name"])
    step = backend.make_step(model, model_cfg)
    order, bs = plan.orders[0], plan.batch_size
    n_batches = max(1, len(order) // bs)

    def one(i: int) -> None:
        idx = order[(i % n_batches) * bs : (i % n_batches + 1) * bs]
        step(data.x_train[idx], data.y_train[idx])

    for i in range(warmup):
        one(i)
    with tempfile.TemporaryDirectory() as logdir:
        tf.profiler.experimental.start(logdir)
        t0 = time.perf_counter_ns()
        for i in range(steps):
            one(warmup + i)
        wall = (time.perf_counter_ns() - t0) / 1e6
        tf.profiler.experimental.stop()
        from pathlib import Path

        space = xplane_pb2.XSpace()
        (found,) = Path(logdir).rglob("*.xplane.pb")
        space.ParseFromString(found.read_bytes())
    optimizer = str(model.optimizer.name).lower()
    totals: dict[str, float] = defaultdict(float)
    for plane in space.planes:
        if not plane.name.startswith("/host:CPU"):
            continue
        for line in plane.lines:
            if not line.name.startswith("tf_Compute"):
                continue  # executor threads run the graph's ops; other lines are host ranges
            for ev in line.events:
                name = plane.event_metadata[ev.metadata_id].name
                if ":" not in name or name.startswith(("ExecutorState", "ParallelFor")):
                    continue
                group = _keras_group(name.split(":")[0], layers, optimizer, model.name)
                totals[group] += ev.duration_ps / 1e9  # ps -> ms
    return {"ops_ms": {k: v / steps for k, v in sorted(totals.items())}, "wall_ms": wall / steps}


def _keras_group(op: str, layers: dict, optimizer: str, model_name: str) -> str:
    scopes = op.removeprefix("gradient_tape/").split("/")
    if scopes[0].lower().startswith(optimizer) or scopes[0] in ("optimizer", "Adam", "RMSprop"):
        return "optimizer"
    if scopes[0].startswith("compile_loss") or "loss" in scopes[0]:
        return "loss"
    if len(scopes) > 1 and KERAS_SUFFIX.sub("", scopes[0]) == model_name:
        layer = scopes[1]
        for candidate in (layer, KERAS_SUFFIX.sub("", layer)):
            if candidate in layers:
                return candidate
        return OTHER_LAYERS
    return "other"


PROFILERS = {"torch": profile_torch, "tensorflow": profile_tensorflow}


def profile(backend, model, model_cfg, data, plan, steps: int, warmup: int) -> dict[str, Any]:
    """The per-layer profile of `steps` steps after `warmup` unprofiled ones."""
    result = PROFILERS[backend.name](backend, model, model_cfg, data, plan, steps, warmup)
    ops_total = sum(result["ops_ms"].values())
    result["ops_total_ms"] = ops_total
    result["host_other_ms"] = max(0.0, result["wall_ms"] - ops_total)
    result["steps"], result["warmup"] = steps, warmup
    result["tool"] = registry.spec(backend.name).profiler
    result |= layer_groups(model_cfg["name"], result["ops_ms"])
    return result
