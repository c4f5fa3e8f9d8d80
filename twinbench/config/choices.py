"""What conf/ offers (the options of a config group, the devices) and the error bad input raises:
the base that twinbench.config and twinbench.config.schema both build on, so neither imports the
other
back."""

from __future__ import annotations

import difflib
from collections.abc import Iterable
from typing import Any

from twinbench.paths import CONF_DIR

DEVICES = ("cpu", "cuda")
# How alike a value must be to a choice to be offered as its spelling (difflib's ratio): 0.75
# takes `torhc` for torch (0.8) and `bfloat` for bfloat16 (0.86), not `tpu` for cpu (0.67),
# which is another device, not a misspelling. Swapped letters of a short name (`gtp`, 0.67) are
# offered by their letters instead.
SPELLING_CUTOFF = 0.75


class ConfigError(ValueError):
    """Bad user input: reported as one line, before any framework loads."""


def group_choices(group: str) -> list[str]:
    """Options of a config group: the yaml files in conf/<group>/."""
    return sorted(p.stem for p in (CONF_DIR / group).glob("*.yaml"))


def unknown_choice(key: str, value: Any, choices: Iterable[Any]) -> ConfigError:
    """The one line for a value that is not among `choices`, with the nearest spelling where one
    is close (`backend=torhc`: "did you mean torch?") or has the same letters (`model=mpl`), as
    an unknown key gets (twinbench/config/checks.py)."""
    names = [str(c) for c in choices]
    swapped = [n for n in names if sorted(n) == sorted(str(value))]  # `mpl`, `gtp`: letters swapped
    close = swapped or difflib.get_close_matches(str(value), names, n=1, cutoff=SPELLING_CUTOFF)
    hint = f" did you mean {close[0]}?" if close else ""
    return ConfigError(f"unknown {key} '{value}';{hint} choose one of: {', '.join(names)}")
