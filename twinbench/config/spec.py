"""The run specification: a validated, plain-Python view of the composed Hydra config.

Hydra's DictConfig stops here; the worker, adapters and models receive plain values only.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twinbench.config import precision as precision_module
from twinbench.config import schema
from twinbench.config.choices import DEVICES, ConfigError, group_choices, unknown_choice
from twinbench.machine import cpu
from twinbench.paths import CONF_DIR

# Re-exported: where callers have imported them from.
__all__ = ["CONF_DIR", "DEVICES", "ConfigError", "group_choices"]


@dataclass(frozen=True)
class RunSpec:
    backend: str
    model: str
    cpus: int
    cores: list[int]
    threads: int
    interop_threads: int
    device: str
    epochs: int
    max_steps: int | None
    seed: int
    data: dict[str, Any]
    model_cfg: dict[str, Any]
    backend_cfg: dict[str, Any]
    measure: dict[str, Any]
    precision: str = "float32"  # twinbench/config/precision.py
    exec_mode: str | None = None  # `exec`: eager | compiled | None (the backend's settings)
    repeats: int = 1  # with repeats=auto: 1 here, auto_repeats True (twinbench/launch/adaptive.py)
    auto_repeats: bool = False
    force: bool = False
    time_limit_s: float | None = None
    allow_parallel: bool = False
    config: dict[str, Any] = field(default_factory=dict, repr=False)  # the whole, for the record

    @property
    def lock_file(self) -> str | None:
        return self.measure.get("lock_file")

    @property
    def batch_size(self) -> int:
        return int(self.model_cfg["batch_size"])

    def oversubscribed(self) -> str | None:
        """One line when the compute pool asks for more threads than the run has cores, else
        None. Such a run is legal (it measures what oversubscription costs) but its threads
        time-share cores: `threads=8` on 1 core fell from 36% to 21% of peak, silently (issue 45).
        """
        if self.threads <= self.cpus:
            return None
        return (
            f"oversubscribed: threads={self.threads} on cpus={self.cpus} "
            f"core{'s' if self.cpus > 1 else ''}: the threads time-share the cores, so the "
            "figures measure the oversubscription too (threads=null uses one per core)"
        )


def _positive_int(name: str, value: Any) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise ConfigError(f"{name} must be a whole number, got {value!r}")
    if value < 1:
        raise ConfigError(f"{name} must be at least 1, got {value}")
    return value


def build_spec(config: dict[str, Any]) -> RunSpec:
    """Validate a resolved config (plain dict) and fill the defaults that depend on the machine."""
    schema.check_rules(config)
    backend = config["backend"]["name"]
    model = config["model"]["name"]
    for group, choice in (("backend", backend), ("model", model)):
        if choice not in group_choices(group):
            raise unknown_choice(group, choice, group_choices(group))

    available = cpu.allowed_cpus()
    cpus = len(available) if config.get("cpus") is None else _positive_int("cpus", config["cpus"])
    if cpus > len(available):
        raise ConfigError(
            f"cpus={cpus} but this process may use only {len(available)} cores "
            f"({_ranges(available)}); choose cpus between 1 and {len(available)}"
        )
    threads = cpus if config.get("threads") is None else _positive_int("threads", config["threads"])
    interop = (
        cpus
        if config.get("interop_threads") is None
        else _positive_int("interop_threads", config["interop_threads"])
    )

    device = config.get("device", "cpu")
    if device not in DEVICES:
        raise unknown_choice("device", device, DEVICES)
    from frameworks import registry  # framework-free: no framework loads here

    if device == "cuda" and (why := registry.spec(backend).cuda_refusal):
        raise ConfigError(f"device=cuda with backend={backend}: {why}")
    if device == "cuda" and not cpu.gpu_visible():
        raise ConfigError(
            "device=cuda but no NVIDIA GPU is visible on this machine; use device=cpu"
        )

    model_cfg = config["model"]
    from frameworks import optimizer_formula, settings
    from twinbench.machine import environment

    precision_module.check_hardware(config, device, environment.cpu_flags())
    try:
        backend_cfg = settings.with_exec(config["backend"], config.get("exec"))
        settings.validate(backend_cfg, model_cfg["optimizer"]["name"])
        settings.check_combination(
            backend_cfg,
            model_cfg,
            config.get("precision", "float32"),
            device,
            precision_module.bf16_units(environment.cpu_flags()),
        )
        optimizer_formula.check(model_cfg["optimizer"])
    except settings.SettingError as exc:
        raise ConfigError(str(exc)) from None
    if config.get("profile") and not settings.registry.spec(backend).profiler:
        raise ConfigError(f"profile=true: backend {backend} has no per-layer profiler here")
    epochs = model_cfg["epochs"] if config.get("epochs") is None else config["epochs"]
    max_steps = config.get("max_steps")
    time_limit = config.get("time_limit_s")
    auto = config.get("repeats") == "auto"
    if time_limit is not None and (isinstance(time_limit, bool) or time_limit <= 0):
        raise ConfigError(f"time_limit_s must be a positive number of seconds, got {time_limit!r}")
    return RunSpec(
        backend=backend,
        model=model,
        cpus=cpus,
        cores=available[:cpus],
        threads=threads,
        interop_threads=interop,
        device=device,
        epochs=_positive_int("epochs", epochs),
        max_steps=None if max_steps is None else _positive_int("max_steps", max_steps),
        seed=int(config.get("seed", 0)),
        data=dict(config["data"]),
        model_cfg=dict(model_cfg),
        backend_cfg=backend_cfg,
        measure=dict(config.get("measure") or {}),
        precision=config.get("precision", "float32"),
        exec_mode=config.get("exec"),
        repeats=1 if auto else _positive_int("repeats", config.get("repeats", 1)),
        auto_repeats=auto,
        force=bool(config.get("force", False)),
        time_limit_s=time_limit,
        allow_parallel=bool(config.get("allow_parallel", False)),
        config=config,
    )


def _ranges(cores: list[int]) -> str:
    """'0-3,8' style, as taskset prints core lists."""
    parts, start = [], None
    for i, core in enumerate(cores):
        if start is None:
            start = core
        if i + 1 == len(cores) or cores[i + 1] != core + 1:
            parts.append(f"{start}" if start == core else f"{start}-{core}")
            start = None
    return "cores " + ",".join(parts)


def spec_from_file(path: Path) -> RunSpec:
    import json

    return build_spec(json.loads(Path(path).read_text()))
