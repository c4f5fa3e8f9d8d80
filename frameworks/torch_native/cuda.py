"""The GPU side of torch's runtime, shared by native torch and Keras on torch: the device's
synchronise for the run clock, the TF32 policy applied and read back, and the device block of the
record (which GPU, which driver and libraries, how much device memory training held at its peak).

Every function takes torch's namespaces as arguments defaulting to the real ones, so the tests
here, on a machine without a GPU, drive them with fakes.
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from typing import Any

import torch

from frameworks.timing import no_sync

MIB = 2**20


def device_sync(device_type: str, cuda: Any = None) -> Callable[[], None]:
    """The clock's sync for this device: torch.cuda.synchronize on a GPU (kernels are queued
    asynchronously, so a host timestamp must wait for them), nothing on the CPU."""
    if device_type != "cuda":
        return no_sync
    return (cuda or torch.cuda).synchronize


def apply_tf32(value: bool | None, backends: Any = None) -> None:
    """backend.tf32: true/false sets both of torch's TF32 switches (matmuls and cuDNN's
    convolutions); null leaves torch's defaults (matmul off, cuDNN on), which Keras on torch
    inherits as they are."""
    if value is None:
        return
    b = backends or torch.backends
    b.cuda.matmul.allow_tf32 = bool(value)
    b.cudnn.allow_tf32 = bool(value)


def tf32_in_effect(backends: Any = None) -> dict[str, bool]:
    """Both TF32 switches as torch reports them, for the record's settings."""
    b = backends or torch.backends
    return {
        "tf32_matmul": bool(b.cuda.matmul.allow_tf32),
        "tf32_cudnn": bool(b.cudnn.allow_tf32),
    }


def check_tf32(requested: bool | None, report: dict[str, bool]) -> str | None:
    """None where the TF32 switches read back as requested, else what differs."""
    if requested is None:
        return None
    wrong = [k for k in ("tf32_matmul", "tf32_cudnn") if report[k] != bool(requested)]
    if not wrong:
        return None
    return f"backend.tf32={requested} requested, {', '.join(wrong)} read back otherwise"


def reset_peak(device: str, cuda: Any = None) -> None:
    """Before training: the device memory peak counts from here (a GPU run only)."""
    if device == "cuda":
        (cuda or torch.cuda).reset_peak_memory_stats()


def driver_version(run: Callable[..., Any] = subprocess.run) -> str | None:
    """The NVIDIA driver's version, from nvidia-smi (torch does not report it); None where
    nvidia-smi is missing or says nothing."""
    try:
        out = run(
            ["nvidia-smi", "--query-gpu=driver_version", "--format=csv,noheader"],
            capture_output=True,
            text=True,
            timeout=10,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    lines = (out.stdout or "").strip().splitlines()
    return lines[0].strip() if out.returncode == 0 and lines else None


def device_block(
    device: str,
    cuda: Any = None,
    versions: Any = None,
    cudnn: Any = None,
    driver: Callable[[], str | None] = driver_version,
) -> dict[str, Any] | None:
    """After training: the GPU the run ran on, for the record; None on the CPU."""
    if device != "cuda":
        return None
    cuda = cuda or torch.cuda
    versions = versions or torch.version
    cudnn = cudnn or torch.backends.cudnn
    index = cuda.current_device()
    props = cuda.get_device_properties(index)
    return {
        "name": cuda.get_device_name(index),
        "index": index,
        "capability": ".".join(map(str, cuda.get_device_capability(index))),
        "memory_total_mib": props.total_memory / MIB,
        "driver": driver(),
        "cuda_runtime": versions.cuda,
        "cudnn": cudnn.version() if cudnn.is_available() else None,
        # Allocated by tensors at the most since reset_peak before training: the caching
        # allocator reserves more (memory_reserved), which is not what the model needed.
        "memory_peak_mib": cuda.max_memory_allocated(index) / MIB,
        "memory_reserved_peak_mib": cuda.max_memory_reserved(index) / MIB,
    }


def gemm_rates(size: int, seconds: float) -> dict[str, float]:
    """Best GFLOP/s of square cuBLAS GEMMs in float32 (TF32 off), TF32 and bfloat16: the GPU's
    peaks beside the CPU's (twinbench.measure.peak), so fraction-of-peak reads alike on both.
    Each timed call is bracketed by synchronises; torch's TF32 switch is restored after."""
    import time

    saved = torch.backends.cuda.matmul.allow_tf32
    rates = {}
    try:
        for name, dtype, tf32 in (
            ("float32", torch.float32, False),
            ("tf32", torch.float32, True),
            ("bfloat16", torch.bfloat16, False),
        ):
            torch.backends.cuda.matmul.allow_tf32 = tf32
            a, b = (torch.randn(size, size, device="cuda", dtype=dtype) for _ in range(2))
            torch.mm(a, b)  # warm-up: cuBLAS handle, kernel selection
            torch.cuda.synchronize()
            best, deadline = 0.0, time.perf_counter() + seconds
            while time.perf_counter() < deadline:
                t0 = time.perf_counter_ns()
                torch.mm(a, b)
                torch.cuda.synchronize()  # a sync point: the GEMM is done, not just queued
                best = max(best, 2 * size**3 / max(time.perf_counter_ns() - t0, 1))
            rates[name] = best
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    return rates
