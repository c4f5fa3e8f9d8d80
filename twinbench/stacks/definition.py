"""What a stack is: a name and exact pins, read from the run's config (conf/stack/<name>.yaml, or
`stack.name=... 'stack.pins=["six==1.16.0"]'` on the command line), and the settings of the
environments' cache (`stacks:` in conf/config.yaml). Plain values only; building is build.py's."""

from __future__ import annotations

import hashlib
import json
import os
import re
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from twinbench.config.choices import ConfigError

# The stack that is the project's own environment: no pins, no extra interpreter.
PINNED = "pinned"
# An exact version (PEP 440 public and local parts); a range or a bare name is not a pin.
_VERSION = re.compile(r"[0-9][0-9A-Za-z.+!_-]*")
_NAME = re.compile(r"[A-Za-z0-9]([A-Za-z0-9._-]*[A-Za-z0-9])?")
_STACK_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def normalize(name: str) -> str:
    """A distribution's canonical name (PEP 503): `Keras_Hub` and `keras-hub` are one package."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True)
class Stack:
    name: str
    pins: dict[str, str] = field(default_factory=dict)  # canonical name -> exact version

    @property
    def pinned(self) -> bool:
        """The project's own environment: nothing to build."""
        return not self.pins

    def requirements(self) -> list[str]:
        return [f"{name}=={version}" for name, version in sorted(self.pins.items())]

    def describe(self) -> str:
        return self.name + (f" ({', '.join(self.requirements())})" if self.pins else "")


def from_config(section: Any) -> Stack:
    """The run config's `stack` node as a Stack; ConfigError naming the stack and the pin."""
    if not isinstance(section, Mapping):
        raise ConfigError(f"stack must be a group of settings (name, pins), got {section!r}")
    unknown = sorted(set(section) - {"name", "pins"})
    if unknown:
        raise ConfigError(f"unknown key 'stack.{unknown[0]}'; valid keys: name, pins")
    name = section.get("name")
    if not isinstance(name, str) or not _STACK_NAME.fullmatch(name):
        raise ConfigError(f"stack.name must be a name of letters, digits, '.', '-', got {name!r}")
    pins = section.get("pins") or []
    if not isinstance(pins, list):
        raise ConfigError(f"stack {name}: pins must be a list of name==version, got {pins!r}")
    exact: dict[str, str] = {}
    for pin in pins:
        package, _, version = str(pin).partition("==")
        if not _NAME.fullmatch(package.strip()) or not _VERSION.fullmatch(version.strip()):
            raise ConfigError(
                f"stack {name}: pin {pin!r} is not an exact pin; write name==version, "
                "e.g. keras==3.12.0"
            )
        if normalize(package.strip()) in exact:
            raise ConfigError(f"stack {name}: {package.strip()} is pinned twice")
        exact[normalize(package.strip())] = version.strip()
    if name == PINNED and exact:
        raise ConfigError(
            f"stack {PINNED} is the project's own environment and takes no pins; name the stack "
            "(stack.name=...) or write conf/stack/<name>.yaml"
        )
    if name != PINNED and not exact:
        raise ConfigError(f"stack {name} pins nothing; a stack without pins is stack={PINNED}")
    return Stack(name, exact)


def load(name: str) -> dict[str, Any]:
    """conf/stack/<name>.yaml as the run config's `stack` node; ConfigError for an unknown one."""
    from omegaconf import OmegaConf

    from twinbench.config.choices import group_choices, unknown_choice
    from twinbench.paths import CONF_DIR

    if name not in group_choices("stack"):
        raise unknown_choice("stack", name, group_choices("stack"))
    node = OmegaConf.to_container(OmegaConf.load(CONF_DIR / "stack" / f"{name}.yaml"))
    from_config(node)  # checked
    return node  # type: ignore[return-value]


@dataclass(frozen=True)
class CacheSettings:
    """`stacks:` in conf/config.yaml."""

    cache_dir: Path
    max_bytes: int
    installer: str | None
    installer_args: tuple[str, ...]
    build_timeout_s: float


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "twinbench" / "stacks"


def cache_settings(section: Mapping[str, Any] | None) -> CacheSettings:
    section = section or {}
    cache_dir = section.get("cache_dir")
    return CacheSettings(
        cache_dir=Path(cache_dir).expanduser() if cache_dir else default_cache_dir(),
        max_bytes=int(section.get("max_mb", 4096)) << 20,
        installer=section.get("installer"),
        installer_args=tuple(str(a) for a in section.get("installer_args") or ()),
        build_timeout_s=float(section.get("build_timeout_s", 900)),
    )


def base_interpreter() -> str:
    """The project's interpreter: the one the launcher runs on, which a stack overlays."""
    return sys.executable


def digest(stack: Stack) -> str:
    """The environment's identity: its pins and the interpreter it overlays (another project
    environment or Python is another environment)."""
    identity = {
        "pins": stack.pins,
        "base": base_interpreter(),
        "python": list(sys.version_info[:3]),
    }
    text = json.dumps(identity, sort_keys=True).encode()
    return hashlib.sha256(text).hexdigest()[:16]
