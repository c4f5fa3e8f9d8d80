"""The precision and execution-mode axes of a run, as columns of the runs table.

A record says what it asked for in its config (`precision`, `exec`) and what ran in its read-back
settings: the compile switches (`compile`, `xla`, `jit_compile`) and the dtypes of the
`precision` block. Records written before these axes existed trained in float32, and their
execution mode is the one their read-back switches show.
"""

from __future__ import annotations

from typing import Any

# Read-back settings that mean "this run was compiled" on some backend (frameworks/registry.py
# exec_modes): torch.compile, XLA for Keras on TensorFlow, Keras' jit_compile on JAX and torch.
COMPILE_SWITCHES = ("compile", "xla", "jit_compile")
# CPU flags of bfloat16 dot-product units (twinbench/config/precision.py's list, which the
# analysis may not import: the core and the analysis are siblings).
BF16_FLAGS = ("avx512_bf16", "amx_bf16", "bf16")


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def exec_mode(settings: dict[str, Any]) -> str | None:
    """compiled where a compile switch read back true, eager where all read back false."""
    seen = [settings[k] for k in COMPILE_SWITCHES if isinstance(settings.get(k), bool)]
    if not seen:
        return None
    return "compiled" if any(seen) else "eager"


def stack_columns(record: dict[str, Any]) -> dict[str, Any]:
    """The stack a run ran on (conf/stack/): its name, and its pins as the worker read them
    back; a record from before stacks, or of the project's own environment, ran on `pinned`."""
    block = _mapping(record.get("stack"))
    pins = _mapping(block.get("pins"))
    return {
        "stack": block.get("name")
        or _mapping(_mapping(record.get("config")).get("stack")).get("name")
        or "pinned",
        "stack_pins": ", ".join(f"{n}=={v}" for n, v in sorted(pins.items())) or None,
        # the backend's packages as the worker read them back: what names a release
        "stack_versions": ", ".join(
            f"{n}=={v}" for n, v in sorted(_mapping(block.get("versions")).items())
        )
        or None,
    }


def columns(record: dict[str, Any]) -> dict[str, Any]:
    """precision, exec_mode, the dtypes read back, the compiled-graph count where the backend
    reports one, and whether a bfloat16 run had BF16 units (False: products were converted
    around float32 kernels, so its speed is a conversion cost, not the hardware's)."""
    config = _mapping(record.get("config"))
    settings = _mapping(record.get("settings"))
    block = _mapping(settings.get("precision"))
    precision = block.get("precision") or config.get("precision") or "float32"
    flags = _mapping(record.get("environment")).get("isa_flags")
    units = None
    if precision == "bfloat16" and isinstance(flags, list):
        units = any(f in flags for f in BF16_FLAGS)
    return {
        "precision": precision,
        "exec_mode": exec_mode(settings) or config.get("exec"),
        "compute_dtype": block.get("compute_dtype"),
        "variable_dtype": block.get("variable_dtype"),
        "compiled_graphs": settings.get("compiled_graphs"),
        "bf16_units": units,
        **stack_columns(record),
    }
