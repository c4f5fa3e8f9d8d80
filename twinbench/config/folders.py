"""Whether a folder is, or can become, one this process writes in: the check every output,
cache and probe folder goes through before a run starts (checks.py; the stacks' cache too)."""

from __future__ import annotations

import os
from pathlib import Path

from twinbench.config.choices import ConfigError


def nearest_existing(path: Path) -> Path:
    while not path.exists():
        path = path.parent
    return path


def check_writable_dir(what: str, path: Path, advice: str) -> None:
    """`path` is, or can become, a directory this process writes in; else one line with advice."""
    if path.exists() and not path.is_dir():
        raise ConfigError(f"{what} is a file, not a directory; {advice}")
    existing = nearest_existing(path)
    if not existing.is_dir():
        raise ConfigError(f"{what}: {existing} is a file, not a directory; {advice}")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"{what}: {existing} is not writable; {advice}")


def ready_out_file(path: Path, option: str = "--out") -> None:
    """A file a command rewrites while it measures (`twinbench aa`'s summary, a speed table's
    JSON): not a folder, in a folder this process can write (made here if missing), so a bad
    one is refused before the first measurement, not minutes in; else ConfigError."""
    if path.is_dir():
        raise ConfigError(f"{option} {path} is a directory; name the JSON file to write")
    check_writable_dir(f"{option}'s folder {path.parent}", path.parent, f"choose another {option}")
    path.parent.mkdir(parents=True, exist_ok=True)
