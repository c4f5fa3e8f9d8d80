"""Software settings of each backend: the run-time switches that are today's "compiled
TensorFlow" (oneDNN, XLA, steps_per_execution, torch.compile, mkldnn, fused optimizers,
denormal flushing, Keras' jit_compile on torch and JAX).

Framework-neutral: the allowed values live in each backend's registry entry
(frameworks/registry.py); validated here in the parent before anything runs, turned into
environment variables the worker sets before the framework loads; the adapters apply the rest
and read every setting back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from frameworks import allocator, registry

# name -> setting -> (allowed values, what it does). None means "the framework's own default".
SETTINGS: dict[str, registry.Settings] = {s.name: s.settings for s in registry.BACKENDS.values()}
FUSED_OPTIMIZERS = ("adam",)  # torch 2.13 has no fused RMSprop or Adadelta
WHOLE_NUMBER_SETTINGS = ("steps_per_execution",)  # allowed None: a whole number >= 1 or null


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
        if allowed is None:
            if value is not None and (
                isinstance(value, bool) or not isinstance(value, int) or value < 1
            ):
                raise SettingError(f"backend.{key} must be a whole number >= 1, got {value!r}")
            continue
        # `1 in (False, True)` holds in Python: compare types too, so 1 is not taken for true.
        if not any(value is a or (type(value) is type(a) and value == a) for a in allowed):
            if len(allowed) == 1:  # a fact of the framework, not a choice
                raise SettingError(f"backend.{key}={value} cannot be honoured: {meaning}")
            raise SettingError(f"backend.{key} must be one of {list(allowed)}, got {value!r}")
    if why := allocator.refusal(backend_cfg.get("allocator")):
        raise SettingError(why)
    if backend_cfg.get("fused_optimizer") is True and optimizer not in FUSED_OPTIMIZERS:
        raise SettingError(
            f"backend.fused_optimizer=true cannot be honoured: torch has no fused {optimizer} "
            f"(fused optimizers here: {', '.join(FUSED_OPTIMIZERS)})"
        )


def with_exec(backend_cfg: dict[str, Any], mode: str | None) -> dict[str, Any]:
    """The backend config with `exec=eager|compiled` mapped onto its own switches (the registry's
    exec_modes); null leaves the finer settings as they are. A mode this machine cannot compile
    for is refused here, before anything trains."""
    if mode is None:
        return dict(backend_cfg)
    spec = registry.spec(backend_cfg["name"])
    if mode == "compiled" and (why := spec.compile_check()):
        raise SettingError(f"exec=compiled cannot run on backend {spec.name} here: {why}")
    return {**backend_cfg, **spec.exec_modes[mode]}


def check_combination(
    backend_cfg: dict[str, Any],
    model_cfg: dict[str, Any],
    precision: str,
    device: str,
    bf16_units: Sequence[str],
) -> None:
    """Refuse, before anything trains, a model, precision and settings together that the backend
    cannot train on this CPU (the registry's combination_check), naming the way out."""
    spec = registry.spec(backend_cfg["name"])
    if why := spec.combination_check(backend_cfg, model_cfg, precision, device, bf16_units):
        raise SettingError(f"backend {spec.name}: {why}")


def environment(backend_cfg: dict[str, Any]) -> dict[str, str]:
    """Variables the framework reads when it loads: the worker sets them before the import. The
    backend's fixed ones (Keras' runtime) and those its settings select (TF_ENABLE_ONEDNN_OPTS),
    and glibc's malloc variables of backend.allocator, which only the worker's spawn can set
    (the parent puts all of them in its environment: twinbench/worker/pinning.py)."""
    spec = registry.spec(backend_cfg["name"])
    env = dict(spec.environment)
    for key, variable in spec.setting_variables.items():
        if backend_cfg.get(key) is not None:
            env[variable] = "1" if backend_cfg[key] else "0"
    env.update(allocator.environment(backend_cfg.get("allocator")))
    return env


def device_environment(backend: str, device: str) -> dict[str, str]:
    """The backend's device variable (Keras on torch's KERAS_TORCH_DEVICE), set before import."""
    variable = registry.spec(backend).device_variable
    return {variable: device} if variable else {}


def thread_environment(backend: str, threads: int, interop_threads: int) -> dict[str, str]:
    """The backend's own thread variables (XLA's), beside twinbench/machine/cpu.py's common ones."""
    return registry.spec(backend).thread_variables(threads, interop_threads)
