"""What conf/ offers (the options of a config group, the devices) and the error bad input raises:
the base that twinbench.config and twinbench.config.schema both build on, so neither imports the
other
back."""

from __future__ import annotations

from twinbench.paths import CONF_DIR

DEVICES = ("cpu", "cuda")


class ConfigError(ValueError):
    """Bad user input: reported as one line, before any framework loads."""


def group_choices(group: str) -> list[str]:
    """Options of a config group: the yaml files in conf/<group>/."""
    return sorted(p.stem for p in (CONF_DIR / group).glob("*.yaml"))
