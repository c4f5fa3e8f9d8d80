"""The numeric precision and the execution mode of a run: two axes every backend maps onto its
own switches, refused in one line before anything trains where the machine cannot honour them.

`precision=bfloat16` is mixed precision: bfloat16 compute, float32 master weights, loss and
optimizer state. It is fast only where the CPU has bfloat16 dot-product units (x86
`avx512_bf16` or `amx_bf16`, Arm `bf16`); elsewhere the libraries convert around float32
kernels, which measures a conversion cost, not the hardware. Such a run is refused unless
`allow_emulated_bf16=true` says it is wanted (it is then flagged in the record and report).
`precision=float16` is refused on a CPU: no backend here trains in float16 on one, and the CPUs
that have float16 arithmetic (avx512_fp16) are not what the libraries' CPU kernels target.

`exec=eager|compiled` (null: the backend's settings decide) is mapped per backend onto the finer
switches by frameworks/settings.py.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from twinbench.config.choices import ConfigError, unknown_choice

PRECISIONS = ("float32", "bfloat16")
REFUSED_PRECISIONS = ("float16",)  # named, so its refusal says why instead of "unknown"
EXEC_MODES = ("eager", "compiled")
# CPU flags (/proc/cpuinfo) of bfloat16 dot-product instructions: x86 AVX-512 BF16 and AMX,
# Arm's BF16 extension.
BF16_FLAGS = ("avx512_bf16", "amx_bf16", "bf16")
ALLOW_KEY = "allow_emulated_bf16"


def check_precision_value(key: str, value: Any) -> None:
    """The schema's rule for `precision`: float32 or bfloat16; float16 is named and refused."""
    if value in REFUSED_PRECISIONS:
        raise ConfigError(
            f"{key}={value} is not supported on a CPU (no backend trains in float16 there); "
            "use precision=bfloat16 or float32"
        )
    if value not in PRECISIONS:
        raise unknown_choice(key, value, PRECISIONS)


def check_exec_value(key: str, value: Any) -> None:
    if value is not None and value not in EXEC_MODES:
        raise unknown_choice(key, value, ("null", *EXEC_MODES))


def bf16_units(flags: Iterable[str]) -> list[str]:
    """The CPU's bfloat16 dot-product flags, empty where bf16 would be converted to float32."""
    flags = set(flags)
    return [f for f in BF16_FLAGS if f in flags]


def check_hardware(config: Mapping[str, Any], device: str, flags: Iterable[str]) -> None:
    """bfloat16 on a CPU without BF16 units runs only when asked for explicitly."""
    if config.get("precision", "float32") != "bfloat16" or device != "cpu":
        return
    if not bf16_units(flags) and not config.get(ALLOW_KEY, False):
        raise ConfigError(
            "precision=bfloat16 but this CPU has no bfloat16 units (no "
            f"{' / '.join(BF16_FLAGS)} flag): bf16 products would be converted around float32 "
            f"kernels; add {ALLOW_KEY}=true to measure that anyway"
        )
