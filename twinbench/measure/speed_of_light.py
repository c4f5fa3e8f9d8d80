"""Speed of light per workload: the model's own matrix products timed alone with the best kernel
on the machine, summed into a lower bound for one training step.

What is timed: every product models/flops.py lists for the model (`flop_products`), at the
run's batch size, forward and backward: a Dense layer is three GEMMs (forward X W, input
gradient dY W^T where flops.py counts one, weight gradient X^T dY); a convolution is the
framework's own conv forward, input-gradient and weight-gradient ops; an LSTM's input and
recurrent products are GEMMs of one timestep's shape, counted per timestep as flops.py counts them
(the recurrent input gradient T - 1 times). Elementwise work (activations, gates, pooling, the
loss, the optimizer) is not timed: the bound is the matrix work alone, so a step can approach it
but not pass it.

How: each library (numpy's BLAS for GEMMs; torch and TensorFlow for GEMMs and convolutions) runs
in its own short process with the run's affinity and one thread per core, like
twinbench/measure/peak.py,
and reports each kernel's median rate over timed repeats. The best library per kernel gives that
kernel's time; count x time summed over the step is `sol_step_s`. The record is cached per
machine fingerprint, core count, model, batch size and kernel list.

A run's steady step is reported against it as `fraction_of_speed_of_light` = sol_step_s /
steady step (1.0 = the step does nothing but its matrix products, each at the best kernel).

Usage (the worker calls `for_run`): python -m twinbench.measure.speed_of_light probe <library>
<repeats>
<min_repeat_s>, with the kernel list as JSON on stdin.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from frameworks import probes
from models.flops import Product
from twinbench.measure import peak

CACHE_VERSION = 2  # 2 (2026-12-06): probes measure their share of the cores (peak.py)
CONV_OPS = ("conv2d", "conv2d_input_grad", "conv2d_weight_grad")


@dataclass(frozen=True)
class Kernel:
    """One kernel call of a training step.

    gemm: shape (m, k, n), an (m x k) by (k x n) product. conv2d*: shape (batch, out_h, out_w,
    in_ch, out_ch, k), a stride-1 'valid' convolution whose input is out + k - 1 wide: exactly
    the FLOPs flops.py counts for the layer, whatever padding the model uses.
    """

    op: str
    shape: tuple[int, ...]

    @property
    def flop(self) -> int:
        n = 2
        for d in self.shape:
            n *= d
        return n * (self.shape[-1] if self.op in CONV_OPS else 1)  # k x k for a convolution


@dataclass(frozen=True)
class Use:
    """A kernel as used by one layer's pass, `count` times per step."""

    layer: str
    stage: str  # forward, input_grad, weight_grad
    kernel: Kernel
    count: int


def _gemms(layer: str, b: int, inputs: int, out: int, times: int, igrad: int):
    return [
        Use(layer, "forward", Kernel("gemm", (b, inputs, out)), times),
        *([Use(layer, "input_grad", Kernel("gemm", (b, out, inputs)), igrad)] if igrad else []),
        Use(layer, "weight_grad", Kernel("gemm", (inputs, b, out)), times),
    ]


def _attention(p: Product, b: int) -> list[Use]:
    """One (T x hd) by (hd x T) gemm per sample and head for the scores, (T x T) by (T x hd)
    for A V; backward, a gemm of the same size for each operand's gradient."""
    t, heads, hd = p.dims
    shape = (t, hd, t) if p.op == "attention.scores" else (t, t, hd)
    return [
        Use(p.layer, stage, Kernel("gemm", shape), b * heads)
        for stage in ("forward", "input_grad", "weight_grad")
    ]


def kernels_of(products: Sequence[Product], batch_size: int) -> list[Use]:
    """Every kernel call of one training step, from flops.py's products (their FLOPs match)."""
    uses: list[Use] = []
    b = batch_size
    for p in products:
        if p.op == "dense":
            i, u = p.dims
            uses += _gemms(p.layer, b, i, u, 1, 1 if p.input_grad else 0)
        elif p.op == "conv2d":
            shape = (b, *p.dims)
            uses.append(Use(p.layer, "forward", Kernel("conv2d", shape), 1))
            if p.input_grad:
                uses.append(Use(p.layer, "input_grad", Kernel("conv2d_input_grad", shape), 1))
            uses.append(Use(p.layer, "weight_grad", Kernel("conv2d_weight_grad", shape), 1))
        elif p.op == "lstm.input":
            t, i, u = p.dims
            uses += _gemms(p.layer, b, i, 4 * u, t, t if p.input_grad else 0)
        elif p.op == "lstm.recurrent":
            t, u = p.dims
            uses += _gemms(p.layer, b, u, 4 * u, t, t - 1)
        elif p.op == "tokens.dense":  # every position of every sample in one gemm
            t, i, u = p.dims
            uses += _gemms(p.layer, b * t, i, u, 1, 1 if p.input_grad else 0)
        elif p.op in ("attention.scores", "attention.values"):
            uses += _attention(p, b)
        else:
            raise ValueError(f"{p.layer}: no shape recorded for speed of light (op {p.op!r})")
    return uses


def unique_kernels(uses: Sequence[Use]) -> list[Kernel]:
    return sorted({u.kernel for u in uses}, key=lambda k: (k.op, k.shape))


# ------------------------------------------------------------------ one library, in its process


def _op(library: str, kernel: Kernel) -> Callable[[], Any] | None:
    """A callable running `kernel` once to completion in `library`, or None if it has none
    (the library's own code is in frameworks/probes/<library>.py)."""
    return probes.kernel_op(library, kernel.op, tuple(kernel.shape))


def probe(
    library: str, kernels: Sequence[Kernel], repeats: int, min_repeat_s: float
) -> dict[str, Any]:
    """Every kernel's median rate in `library` (this process); None where it has no such op."""
    timed = []
    for kernel in kernels:
        op = _op(library, kernel)
        entry: dict[str, Any] = {"op": kernel.op, "shape": list(kernel.shape)}
        if op is None:
            timed.append(entry | {"seconds": None})
            continue
        rate = peak.median_rate(op, kernel.flop, repeats, min_repeat_s)
        seconds = kernel.flop / (rate["gflops"] * 1e9)
        timed.append(
            entry | {k: rate[k] for k in ("gflops", "spread", "core_share")} | {"seconds": seconds}
        )
    return {"library": library, "kernel": peak._gemm(library, 8)[1], "kernels": timed}


def _run_probe(
    library: str, kernels: Sequence[Kernel], repeats: int, min_repeat_s: float, cores: int
) -> dict[str, Any]:
    """One library's probe in a fresh interpreter (this process' affinity, one thread a core)."""
    from twinbench.launch import lifeline
    from twinbench.machine import cpu

    # A probe is the worker's child: it must die with the worker (kill -9 of run.py reaches the
    # worker through its parent-death signal, and the probe through its own).
    env = lifeline.child_env({**os.environ, **cpu.thread_environment(cores, cores)})
    env.pop("TF_ENABLE_ONEDNN_OPTS", None)  # each library as installed: its default kernels
    proc = subprocess.run(
        [sys.executable, "-m", "twinbench.measure.speed_of_light", "probe", library, str(repeats),
         str(min_repeat_s)],
        input=json.dumps([[k.op, list(k.shape)] for k in kernels]),
        capture_output=True, text=True, env=env, timeout=900,
    )  # fmt: skip
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        return {"library": library, "error": tail[0], "kernels": []}
    return json.loads(proc.stdout.strip().splitlines()[-1])


# ------------------------------------------------------------------ the limit, cached


def _cache_file(cache_dir: Path, fingerprint: str, cores: int, model: str, batch: int) -> Path:
    name = re.sub(r"[^A-Za-z0-9]+", "_", fingerprint).strip("_").lower()
    return Path(cache_dir) / f"sol-{model}-bs{batch}-{name}-cpus{cores}.json"


def _without_kernels(result: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in result.items() if k != "kernels"}  # they are in the rows


def combine(uses: Sequence[Use], per_library: dict[str, dict[str, Any]]) -> dict[str, Any]:
    """The best library per kernel, each use's time, and the step's sum: the speed of light.
    A library's own sum is given where it has every kernel (numpy has no convolution)."""
    times: dict[str, dict[tuple, float]] = {}
    for lib, result in per_library.items():
        times[lib] = {
            (k["op"], tuple(k["shape"])): k["seconds"]
            for k in result.get("kernels", [])
            if k.get("seconds")
        }
    rows, library_step = [], dict.fromkeys(per_library, 0.0)
    for u in uses:
        key = (u.kernel.op, u.kernel.shape)
        found = {lib: t[key] for lib, t in times.items() if key in t}
        for lib in per_library:
            if library_step[lib] is not None:
                library_step[lib] = (
                    library_step[lib] + u.count * found[lib] if lib in found else None
                )
        best = min(found, key=found.get) if found else None
        rows.append({
            "layer": u.layer, "stage": u.stage, "op": u.kernel.op, "shape": list(u.kernel.shape),
            "count": u.count, "flop": u.count * u.kernel.flop, "best_library": best,
            "seconds": u.count * found[best] if best else None,
            "seconds_by_library": {lib: u.count * s for lib, s in found.items()},
        })  # fmt: skip
    complete = all(r["seconds"] is not None for r in rows)
    return {
        "kernels": rows,
        "sol_step_s": sum(r["seconds"] for r in rows) if complete and rows else None,
        "library_step_s": library_step,
        "flop_per_step": sum(r["flop"] for r in rows),
    }


def speed_of_light(
    fingerprint: str,
    cores: int,
    model: str,
    products: Sequence[Product],
    batch_size: int,
    *,
    repeats: int = 5,
    min_repeat_s: float = 0.05,
    cache_dir: Path | None = None,
    libraries: tuple[str, ...] = peak.LIBRARIES,
    run_probe: Callable[..., dict[str, Any]] = _run_probe,
    min_share: float = peak.MIN_CORE_SHARE,
) -> dict[str, Any]:
    """The model's speed of light on `cores` cores, from the cache or measured now: one probe at
    a time on the machine, and not cached where a kernel's probe had less than `min_share` of
    its cores (as the machine peak, twinbench/measure/peak.py)."""
    uses = kernels_of(products, batch_size)
    kernels = unique_kernels(uses)
    cache_dir = Path(cache_dir or peak.default_cache_dir())
    path = _cache_file(cache_dir, fingerprint, cores, model, batch_size)
    want = {
        "version": CACHE_VERSION, "model": model, "batch_size": batch_size, "repeats": repeats,
        "libraries": [*libraries], "kernels": [[k.op, list(k.shape)] for k in kernels],
    }  # fmt: skip
    cached = peak.read_cache(path, want)
    if cached is not None:
        return cached
    with peak.probe_lock(cache_dir):
        cached = peak.read_cache(path, want)  # measured by a probe this one waited for
        if cached is not None:
            return cached
        per_library = {
            lib: run_probe(lib, kernels, repeats, min_repeat_s, cores)
            for lib in libraries
            if importlib.util.find_spec(lib) is not None
        }
    shares = {
        lib: min(k["core_share"] for k in r.get("kernels", []) if k.get("core_share") is not None)
        for lib, r in per_library.items()
        if any(k.get("core_share") is not None for k in r.get("kernels", []))
    }
    shared = {lib: share for lib, share in shares.items() if share < min_share}
    record = {
        "probe": {**want, "min_repeat_s": min_repeat_s},
        "fingerprint": fingerprint,
        "cores": cores,
        "libraries": {lib: _without_kernels(r) for lib, r in per_library.items()},
        **combine(uses, per_library),
        "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_average": list(os.getloadavg()),  # a loaded machine caches a slow limit
        "shared_cores": shared,  # not empty: a probe shared its cores, and this is not cached
    }  # fmt: skip
    if shared:
        return record | {"cached": False, "cache_file": None}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record, indent=1))
    os.replace(tmp, path)  # atomic, as the machine peak's cache
    return record | {"cached": False, "cache_file": str(path)}


def against(sol: dict[str, Any], backend: str, steady_step_s: float) -> dict[str, Any]:
    """A run's steady step against the speed of light, and against its own library's kernels."""
    limit = sol.get("sol_step_s")
    own = (sol.get("library_step_s") or {}).get(backend)
    return sol | {
        "steady_step_s": steady_step_s,
        "fraction_of_speed_of_light": limit / steady_step_s if limit and steady_step_s else None,
        "framework_sol_step_s": own,
        # the same products in this framework's own kernels, against its steady step
        "fraction_of_framework_sol": own / steady_step_s if own and steady_step_s else None,
        # A step faster than its lower bound means the limit was measured under load (a thread
        # pool waiting on a descheduled thread costs a whole time slice per call): delete the
        # cache file (`cache_file`) and measure again on a quiet machine.
        "above_speed_of_light": bool(limit and steady_step_s and steady_step_s < limit),
    }


def for_run(spec: Any, arch: dict[str, Any], fingerprint: str) -> dict[str, Any] | None:
    """The worker's hook: the speed of light of this run's model, batch and cores, if asked for
    (measure.speed_of_light) on a CPU run of a model that lists its products."""
    if not spec.measure.get("speed_of_light", False) or spec.device != "cpu":
        return None
    import models

    products = getattr(models.get(spec.model), "flop_products", None)
    if products is None:
        return None
    cache = spec.measure.get("peak_cache_dir")
    return speed_of_light(
        fingerprint,
        len(spec.cores),
        spec.model,
        products(**arch),
        spec.batch_size,
        repeats=int(spec.measure.get("sol_repeats", 5)),
        min_repeat_s=float(spec.measure.get("sol_repeat_s", 0.05)),
        cache_dir=Path(cache) if cache else None,
        min_share=float(spec.measure.get("peak_probe_min_share", peak.MIN_CORE_SHARE)),
    )


def main(argv: list[str]) -> int:
    from twinbench.launch import lifeline

    lifeline.die_with_parent()  # first: a probe never outlives the worker that started it
    if len(argv) != 5 or argv[1] != "probe":
        print(
            "usage: python -m twinbench.measure.speed_of_light probe <library> <repeats> "
            "<min_repeat_s> "
            "< kernels.json",
            file=sys.stderr,
        )
        return 2
    kernels = [Kernel(op, tuple(shape)) for op, shape in json.loads(sys.stdin.read())]
    print(json.dumps(probe(argv[2], kernels, int(argv[3]), float(argv[4]))))
    return 0


if __name__ == "__main__":
    from twinbench.launch.lifeline import leave_without_teardown

    leave_without_teardown(main(sys.argv))  # its figure is printed: skip the library's teardown
