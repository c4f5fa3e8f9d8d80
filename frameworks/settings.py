"""Software settings of each backend: the run-time switches that are today's "compiled
TensorFlow" (oneDNN, XLA, steps_per_execution, torch.compile, mkldnn, fused optimizers,
denormal flushing).

Framework-neutral: validated in the parent before anything runs, turned into environment
variables the worker sets before the framework loads; the adapters apply the rest and read every
setting back (frameworks/torch_backend.py, frameworks/tensorflow_backend.py).
"""

from __future__ import annotations

from typing import Any

# name -> (allowed values, what it does). None means "the framework's own default".
SETTINGS: dict[str, dict[str, tuple[tuple, str]]] = {
    "torch": {
        "compile": ((False, True), "torch.compile the model for training (Inductor on CPU)"),
        "compile_mode": (
            ("default", "reduce-overhead", "max-autotune"),
            "torch.compile mode",
        ),
        "mkldnn": ((True, False), "torch.backends.mkldnn.enabled: oneDNN kernels (default on)"),
        "flush_denormal": ((False, True), "torch.set_flush_denormal: denormals become zero"),
        "fused_optimizer": (
            (False, True, "auto"),
            "torch's fused optimizer kernel (Adam); 'auto': where torch has one",
        ),
    },
    "tensorflow": {
        "onednn": ((None, True, False), "TF_ENABLE_ONEDNN_OPTS before import (default on, x86)"),
        "xla": ((None, True, False), "compile(jit_compile=...); null = Keras' 'auto' (off on CPU)"),
        "steps_per_execution": (None, "compile(steps_per_execution=N): N steps per graph call"),
        "flush_denormal": (
            (True,),
            "TensorFlow flushes denormals in every op; it cannot be turned off",
        ),
    },
}
FUSED_OPTIMIZERS = ("adam",)  # torch 2.13 has no fused RMSprop or Adadelta


class SettingError(ValueError):
    pass


def settings_of(backend_cfg: dict[str, Any]) -> dict[str, Any]:
    """The backend config without its name: the settings."""
    return {k: v for k, v in backend_cfg.items() if k != "name"}


def validate(backend_cfg: dict[str, Any], optimizer: str | None = None) -> None:
    """Refuse unknown settings and values a framework cannot honour, with what to do instead."""
    backend = backend_cfg["name"]
    known = SETTINGS.get(backend, {})
    for key, value in settings_of(backend_cfg).items():
        if key not in known:
            raise SettingError(
                f"backend {backend} has no setting '{key}'; its settings are: {', '.join(known)}"
            )
        allowed, meaning = known[key]
        if key == "steps_per_execution":
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise SettingError(
                    f"backend.steps_per_execution must be a whole number >= 1, got {value!r}"
                )
            continue
        # `1 in (False, True)` holds in Python: compare types too, so 1 is not taken for true.
        if not any(value is a or (type(value) is type(a) and value == a) for a in allowed):
            if backend == "tensorflow" and key == "flush_denormal":
                raise SettingError(f"backend.flush_denormal={value} cannot be honoured: {meaning}")
            raise SettingError(f"backend.{key} must be one of {list(allowed)}, got {value!r}")
    if backend_cfg.get("fused_optimizer") is True and optimizer not in FUSED_OPTIMIZERS:
        raise SettingError(
            f"backend.fused_optimizer=true cannot be honoured: torch has no fused {optimizer} "
            f"(fused optimizers here: {', '.join(FUSED_OPTIMIZERS)})"
        )


def environment(backend_cfg: dict[str, Any]) -> dict[str, str]:
    """Variables the framework reads when it loads: the worker sets them before the import."""
    if backend_cfg["name"] == "tensorflow" and backend_cfg.get("onednn") is not None:
        return {"TF_ENABLE_ONEDNN_OPTS": "1" if backend_cfg["onednn"] else "0"}
    return {}
