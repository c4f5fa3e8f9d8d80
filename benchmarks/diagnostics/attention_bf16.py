"""Where torch's bfloat16 attention loses: a transformer's own attention layer, float32 against
bfloat16 under autocast (as twinbench's torch bfloat16 runs it), forward and backward, one
thread.

On CPUs with bfloat16 units torch's bfloat16 step of imdb_transformer was slower than its
float32 one (0.84x on the AMD AVX-512 host, 0.63-0.67x with AMX on an Intel host), all of it in
its attention layer. This builds the model as a run does (conf/model/<name>.yaml, the backend's
builder) with `attention` fused and then explicit, takes its first attention layer in training
mode with its own attention dropout (which decides the kernel F.scaled_dot_product_attention
picks: frameworks/attention_probe.py asks torch's dispatcher, and the kernel is named here), and
times the layer forward and backward at the run's shapes. The fused and explicit layers differ
only in how they attend, so the difference between their rows is the attention kernel's.

    python -m benchmarks.diagnostics.attention_bf16 [--models imdb_transformer gpt] [--reps 30]

Each figure is the median of --reps timed repeats after as many untimed ones, in this process.
docs/findings/2026-12-07-bf16-on-amx.md cites it.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable
from typing import Any

import models
from frameworks import attention_probe
from models.catalog import model_config

KERNELS = (attention_probe.FUSED, attention_probe.EXPLICIT)
PRECISIONS = ("float32", "bfloat16")


def attention_layer(model: str, kernel: str) -> tuple[Any, Any, str]:
    """(the model's first attention layer in training mode, an input of the run's shape, the
    kernel its attention runs) with `attention` set to `kernel`."""
    import torch

    from benchdata import cache, fill_arch, load
    from models.torch_transformer import SelfAttention

    cfg = model_config(model)
    # sizes only the data knows (gpt's vocabulary), as the speed tables' ports fill them
    store = cache.default_dir()
    data = load(cfg["dataset"], "synthetic", 0, cfg.get("view"), synthetic_cache=store)
    arch = {**fill_arch(cfg, data)["arch"], "attention": kernel}
    net = models.get(model).torch_model(**arch)
    layer = next(m for m in net.modules() if isinstance(m, SelfAttention)).train()
    batch = int(cfg["batch_size"])
    ran = attention_probe.ran(net, {"arch": arch}, batch) or {}
    x = torch.randn(batch, int(arch["maxlen"]), int(arch["width"]), requires_grad=True)
    return layer, x, str(ran.get("kernel"))


def median_ms(run: Callable[[Any], Any], x: Any, precision: str, reps: int) -> float:
    """Median ms of `run(x)` forward and backward, under autocast for bfloat16."""
    import torch

    def once() -> float:
        start = time.perf_counter()
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=precision == "bfloat16"):
            out = run(x)
        out.float().sum().backward()
        return time.perf_counter() - start

    for _ in range(reps):
        once()
    return 1e3 * statistics.median(once() for _ in range(reps))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--models", nargs="+", default=["imdb_transformer", "gpt"])
    parser.add_argument("--reps", type=int, default=30, help="timed repeats (and as many warm)")
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)  # the matrix's runs had one core
    print(f"torch {torch.__version__}, 1 thread; forward + backward, median of {args.reps}")
    print("| model | attention | kernel | fp32 ms | bf16 ms | bf16 speed-up |")
    print("|---|---|---|---:|---:|---:|")
    for model in args.models:
        for kernel in KERNELS:
            layer, x, ran = attention_layer(model, kernel)
            fp32, bf16 = (median_ms(layer, x, p, args.reps) for p in PRECISIONS)
            print(f"| {model} | {kernel} | {ran} | {fp32:.2f} | {bf16:.2f} | {fp32 / bf16:.2f}x |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
