"""What every configuration key may hold: the one table the command line, sweeps, parity and
analysis are checked against before any work starts.

Two sources, no third:
- the keys twinbench itself reads (the top level, `measure`, `data`) have a rule here;
- a model's, preset's or backend's keys are the ones its yaml file in conf/ defines, and a value
  must keep the kind of the value written there (a whole number stays a whole number), while
  backend settings are checked against frameworks/settings.py's allowed values.

Every check raises ConfigError with one line that names the key and what it may be.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Mapping
from typing import Any

from twinbench.config.choices import DEVICES, ConfigError, group_choices, unknown_choice
from twinbench.config.model_values import check_model
from twinbench.config.precision import check_exec_value, check_precision_value

GROUPS = ("backend", "model", "data", "opt")

Check = Callable[[str, Any], None]


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _is_number(value: Any) -> bool:
    return (_is_int(value) or isinstance(value, float)) and math.isfinite(value)


def whole(minimum: int, optional: bool = False) -> Check:
    def check(key: str, value: Any) -> None:
        if value is None and optional:
            return
        if not _is_int(value):
            hint = ""
            if optional and value == "None":  # a sweep parameter given as null reaches the job
                # as Python's spelling of it (Hydra's sweeper writes `key=None`)
                hint = f", how a sweep parameter given as null reaches a job: write {key}=null"
            raise ConfigError(f"{key} must be a whole number, got {value!r}{hint}")
        if value < minimum:
            raise ConfigError(f"{key} must be at least {minimum}, got {value}")

    check.__doc__ = f"a whole number >= {minimum}" + (" or null" if optional else "")
    return check


def positive_number(optional: bool = False) -> Check:
    def check(key: str, value: Any) -> None:
        if value is None and optional:
            return
        if not _is_number(value) or value <= 0:
            raise ConfigError(f"{key} must be a positive number, got {value!r}")

    check.__doc__ = "a positive number" + (" or null" if optional else "")
    return check


def share(key: str, value: Any) -> None:
    """A share of a whole, above 0 and at most 1."""
    if not _is_number(value) or not 0 < value <= 1:
        raise ConfigError(f"{key} must be a number above 0 and at most 1, got {value!r}")


def repeat_count(key: str, value: Any) -> None:
    """A whole number of repeats, or `auto`: repeat until the interval is narrow (adaptive.py)."""
    if value == "auto":
        return
    if not _is_int(value) or value < 1:
        raise ConfigError(f"{key} must be a whole number >= 1 or auto, got {value!r}")


def boolean(key: str, value: Any) -> None:
    if not isinstance(value, bool):
        raise ConfigError(f"{key} must be true or false, got {value!r}")


def text(optional: bool = False) -> Check:
    def check(key: str, value: Any) -> None:
        if value is None and optional:
            return
        if not isinstance(value, str) or not value:
            raise ConfigError(f"{key} must be a non-empty string, got {value!r}")

    return check


def one_of(*choices: Any) -> Check:
    def check(key: str, value: Any) -> None:
        if value not in choices:
            raise unknown_choice(key, value, choices)

    return check


def string_list(key: str, value: Any) -> None:
    if not isinstance(value, list) or not all(isinstance(v, str) and v for v in value):
        raise ConfigError(f"{key} must be a list of non-empty strings, got {value!r}")


def stack_value(key: str, value: Any) -> None:
    """A stack: a name and exact pins (twinbench/stacks/definition.py says what is exact)."""
    from twinbench.stacks.definition import from_config

    from_config(value)


def sha256_overrides(key: str, value: Any) -> None:
    from benchdata.real_files import FILES

    if not isinstance(value, Mapping):
        raise ConfigError(f"{key} must be a mapping of file keys to SHA-256 values")
    for name, digest in value.items():
        if name not in FILES:
            raise ConfigError(f"unknown key '{key}.{name}'; valid keys: {', '.join(FILES)}")
        if digest is not None and not re.fullmatch(r"[0-9a-fA-F]{64}", str(digest)):
            raise ConfigError(f"{key}.{name} must be 64 hex digits, got {digest!r}")


# The keys twinbench reads, and what each may hold.
TOP_LEVEL: dict[str, Check] = {
    "cpus": whole(1, optional=True),
    "threads": whole(1, optional=True),
    "interop_threads": whole(1, optional=True),
    "device": one_of(*DEVICES),
    "epochs": whole(1, optional=True),
    "max_steps": whole(1, optional=True),
    "seed": whole(0),
    "repeats": repeat_count,
    "repeat_slot": whole(0, optional=True),
    "force": boolean,
    "time_limit_s": positive_number(optional=True),
    "allow_parallel": boolean,
    "profile": boolean,
    "certify": boolean,
    "report": boolean,
    "quiet": boolean,
    "verbose": boolean,
    "precision": check_precision_value,
    "allow_emulated_bf16": boolean,
    "exec": check_exec_value,
    "stack": stack_value,
}
MEASURE: dict[str, Check] = {
    "warmup_steps": whole(0),
    "peak_probe": boolean,
    "data_cache": boolean,
    "data_cache_dir": text(optional=True),
    "peak_probe_size": whole(1),
    "peak_probe_bf16_size": whole(1),
    "peak_probe_seconds": positive_number(),
    "peak_probe_repeats": whole(1),
    "peak_probe_repeat_s": positive_number(),
    "peak_probe_min_share": share,
    "peak_cache_dir": text(optional=True),
    "kernel_probe": boolean,
    "kernel_probe_timeout_s": positive_number(),
    "speed_of_light": boolean,
    "sol_repeats": whole(1),
    "sol_repeat_s": positive_number(),
    "profile_steps": whole(1),
    "profile_warmup_steps": whole(0),
    "subnormal_flag_share": share,
    "kernel_share_flag": share,
    "unstable_rel_width": positive_number(),
    "step_batches": whole(6),  # fewer cannot reach a 95% interval
    "target_rel_width": positive_number(),
    "max_repeats": whole(1),
    "max_seconds": positive_number(optional=True),
    "lock_file": text(),
}
STACKS: dict[str, Check] = {
    "cache_dir": text(optional=True),
    "max_mb": whole(1),
    "installer": text(optional=True),
    "installer_args": string_list,
    "build_timeout_s": positive_number(),
}
DATA: dict[str, dict[str, Check]] = {
    "synthetic": {"source": one_of("synthetic")},
    "real": {
        "source": one_of("real"),
        "cache_dir": text(optional=True),
        "mirror": text(optional=True),
        "timeout_s": positive_number(),
        "sha256": sha256_overrides,
    },
}


def _section(name: str, values: Any, rules: Mapping[str, Check]) -> None:
    if not isinstance(values, Mapping):
        raise ConfigError(f"{name} must be a group of settings, got {values!r}")
    for key, value in values.items():
        if key not in rules:
            raise ConfigError(f"unknown key '{name}.{key}'; valid keys: {', '.join(rules)}")
        rules[key](f"{name}.{key}", value)


# Groups of settings whose yaml documents null as "off" (cifar10_cnn: model.augment=null).
NULLABLE_GROUPS = frozenset({"model.augment"})


def _like_default(name: str, value: Any, default: Any) -> None:
    """A yaml-defined value keeps the kind of its default; null defaults take anything."""
    if value is None and name in NULLABLE_GROUPS:
        return
    if isinstance(default, Mapping):
        if not isinstance(value, Mapping):
            raise ConfigError(f"{name} must be a group of settings, got {value!r}")
        for key, sub in value.items():
            if key not in default:
                raise ConfigError(
                    f"unknown key '{name}.{key}'; valid keys: {', '.join(map(str, default))}"
                )
            _like_default(f"{name}.{key}", sub, default[key])
        return
    if default is None or value is None:
        return
    if isinstance(default, bool):
        boolean(name, value)
    elif _is_int(default):
        if not _is_int(value):
            raise ConfigError(f"{name} must be a whole number, got {value!r}")
        if default > 0 and value < 1:
            raise ConfigError(f"{name} must be at least 1, got {value}")
    elif isinstance(default, float):
        if not _is_number(value):
            raise ConfigError(f"{name} must be a finite number, got {value!r}")
        if default >= 0 and value < 0:
            raise ConfigError(f"{name} must not be negative, got {value}")
    elif isinstance(default, str) and not isinstance(value, str):
        raise ConfigError(f"{name} must be text, got {value!r}")


def check_rules(config: Mapping[str, Any]) -> None:
    """The values of the keys twinbench reads (top level, `measure`, `data`).

    Also applied to every job's config where it is built (config.build_spec), whoever composed it.
    """
    for key, check in TOP_LEVEL.items():
        if key in config:
            check(key, config[key])
    _section("measure", config.get("measure", {}), MEASURE)
    _section("stacks", config.get("stacks", {}), STACKS)
    data = config.get("data") or {}
    _section("data", data, DATA.get(data.get("source"), DATA["synthetic"]))


def validate(config: Mapping[str, Any], defaults: Mapping[str, Any]) -> None:
    """Check a resolved job config against the rules and against `defaults`, the same groups'
    config composed without value overrides (so each group's yaml defines its keys)."""
    for group in GROUPS:
        choices = group_choices(group)
        name = (config.get(group) or {}).get("name", (config.get(group) or {}).get("source"))
        if name is not None and str(name) not in choices:
            raise unknown_choice(group, name, choices)
    expected = {*TOP_LEVEL, "measure", "stacks", *GROUPS}
    for key in config:
        if key not in expected:
            raise ConfigError(f"unknown key '{key}'; valid keys: {', '.join(sorted(expected))}")
    check_rules(config)
    for group in ("model", "opt"):
        _like_default(group, config.get(group), defaults.get(group))
    if isinstance(config.get("model"), Mapping):
        check_model(config["model"])
    # Backend settings: their allowed values live in frameworks/settings.py (config.build_spec).
