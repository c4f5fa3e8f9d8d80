"""Per-library probe code for twinbench's machine peak (twinbench/measure/peak.py) and speed of
light
(twinbench/measure/speed_of_light.py): one module per library, `frameworks.probes.<library>`,
looked up
by name so twinbench/ never names a library in code.

Every module offers:
    gemm(size) -> (op, kernel): a callable doing one float32 size x size GEMM to completion,
        and the name of the kernel library that runs it;
    kernel_op(op, shape) -> callable | None: one speed-of-light kernel ("gemm" (m, k, n);
        "conv2d", "conv2d_input_grad", "conv2d_weight_grad" (b, oh, ow, ci, co, k), stride 1,
        no padding) run once to completion, or None where the library has no such kernel.

Importing this package loads no library: `module` imports one, in the probe's own process.
"""

from __future__ import annotations

import importlib
from types import ModuleType

from frameworks import registry

# Not a framework: numpy's BLAS is the framework-neutral GEMM every machine peak includes.
NEUTRAL = ("numpy",)


def libraries() -> tuple[str, ...]:
    """The libraries to probe: the neutral BLAS, then each runtime of the registry, once."""
    runtimes = [registry.spec(name).runtime for name in registry.names()]
    return (*NEUTRAL, *dict.fromkeys(runtimes))


def module(library: str) -> ModuleType:
    """The probe module of `library`; ValueError where there is none."""
    if library not in libraries():
        raise ValueError(f"no probe for {library!r}; probed libraries: {', '.join(libraries())}")
    return importlib.import_module(f"{__name__}.{library}")


def gemm(library: str, size: int, precision: str = "float32"):
    """One size x size GEMM: float32, or bfloat16 inputs (gemm_bf16) where the library has one;
    ValueError where it has none (numpy)."""
    if precision == "float32":
        return module(library).gemm(size)
    gemm_bf16 = getattr(module(library), "gemm_bf16", None)
    if gemm_bf16 is None:
        raise ValueError(f"{library} has no bfloat16 GEMM")
    return gemm_bf16(size)


def kernel_op(library: str, op: str, shape: tuple[int, ...]):
    return module(library).kernel_op(op, shape)


def conv_shapes(shape: tuple[int, ...]) -> tuple[int, int, int, int, int, int, int, int]:
    """(b, oh, ow, ci, co, k) -> the same plus the input's height and width (no padding)."""
    b, oh, ow, ci, co, k = shape
    return b, oh, ow, ci, co, k, oh + k - 1, ow + k - 1
