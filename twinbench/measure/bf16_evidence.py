"""Whether a bfloat16 run's products ran on bfloat16 units, from the kernel probe's logs
(twinbench/measure/kernels.py).

oneDNN names the ISA of every implementation it executes (`brg_matmul:avx512_core_amx`,
`brgconv:avx512_core_bf16`, `gemm:jit`...): one whose name carries bf16 or amx used the bfloat16
dot-product instructions. Anything else in a bfloat16 run means the products fell back to float32
(an MKL SGEMM logged) or were converted around float32 kernels (torch's native bfloat16 GEMM,
Eigen, XLA's CPU dot, none of which log): the record and the report flag that run.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

BF16_ISA_MARKS = ("bf16", "amx")  # in a oneDNN implementation name: bfloat16 instructions
PRODUCT_PRIMITIVES = ("matmul", "inner_product", "convolution", "deconvolution", "rnn")
FP32_GEMMS = ("SGEMM", "SGEMM_BATCH", "SGEMV")  # MKL's float32 products


def per_op(primitives: dict[str, int]) -> dict[str, dict[str, Any]]:
    """oneDNN's product primitives by op type: implementations run, and whether any used
    bfloat16 instructions."""
    ops: dict[str, dict[str, int]] = defaultdict(dict)
    for key, count in primitives.items():
        kind, _, impl = key.partition(" ")
        if kind in PRODUCT_PRIMITIVES:
            ops[kind][impl] = ops[kind].get(impl, 0) + count
    return {
        kind: {
            "implementations": impls,
            "bf16_units": any(m in impl for impl in impls for m in BF16_ISA_MARKS),
        }
        for kind, impls in ops.items()
    }


def verdict(
    precision: str, primitives: dict[str, int], mkl_calls: dict[str, int]
) -> dict[str, Any]:
    """Per op type which kernel and ISA ran; for a bfloat16 run, whether the BF16 units did."""
    ops = per_op(primitives)
    fp32 = {k: n for k, n in mkl_calls.items() if k in FP32_GEMMS}
    ran = any(op["bf16_units"] for op in ops.values())
    flag = None
    if precision == "bfloat16" and not ran:
        flag = "bfloat16 run without bfloat16 units: its products " + (
            f"fell back to float32 ({', '.join(f'MKL {k} x{n}' for k, n in fp32.items())})"
            if fp32
            else "were converted around float32 kernels (no bfloat16-ISA kernel logged)"
        )
    return {
        "precision": precision,
        "per_op": ops,
        "fp32_gemm_calls": fp32,
        "bf16_units_ran": ran,
        "flag": flag,
    }


def gemm_flag(
    bfloat16: dict[str, Any] | None, float32: dict[str, Any] | None, library: str
) -> str | None:
    """The record's flag of a bfloat16 run on cores where its framework's bfloat16 GEMM is slower
    than its float32 one (the machine peak probe of each precision, twinbench/measure/peak.py):
    its step is then slower for the hardware's sake, not the framework's. On the Intel host of
    2026-12-07 (avx512_bf16, no AMX) every library's bfloat16 GEMM ran at 0.52x its float32
    one. None where either rate is missing or bfloat16 is not slower."""
    rate = ((bfloat16 or {}).get("libraries") or {}).get(library, {}).get("gflops")
    base = ((float32 or {}).get("libraries") or {}).get(library, {}).get("gflops")
    if not rate or not base or rate >= base:
        return None
    return (
        f"bfloat16 GEMM slower here: {library}'s reaches {rate:.0f} GFLOP/s in bfloat16 and "
        f"{base:.0f} in float32 on these cores ({rate / base:.2f}x), so this machine's bfloat16 "
        "products cost more than its float32 ones; precision=float32 is the faster choice here"
    )
