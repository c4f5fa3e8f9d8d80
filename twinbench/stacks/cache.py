"""The stacks' environments on disk: one folder per digest under the cache folder, each with
meta.json (what was asked and installed, its size) and `last_used`, whose time orders eviction.

Only complete environments carry meta.json: a build works in a `.building-*` folder and renames it
into place at the end (build.py), so a listing never shows half an environment.
"""

from __future__ import annotations

import json
import os
import shutil
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

META = "meta.json"
LAST_USED = "last_used"
BUILDING_PREFIX = ".building-"
# A `.building-*` folder older than this belongs to a build that died (killed, power cut): a
# listing may remove it, a live build's is younger.
STALE_BUILD_S = 24 * 3600


@dataclass(frozen=True)
class Entry:
    path: Path
    meta: dict[str, Any]
    size_bytes: int
    last_used: float

    @property
    def name(self) -> str:
        return str(self.meta.get("name", "?"))

    @property
    def interpreter(self) -> Path:
        return self.path / "bin" / "python"


def folder_size(path: Path) -> int:
    """Bytes the folder's files take (links counted as links, not what they point at)."""
    total = 0
    for root, _dirs, files in os.walk(path):
        for name in files:
            try:
                total += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                continue
    return total


def read_entry(path: Path) -> Entry | None:
    try:
        meta = json.loads((path / META).read_text())
    except (OSError, ValueError):
        return None
    stamp = path / LAST_USED
    used = stamp.stat().st_mtime if stamp.exists() else (path / META).stat().st_mtime
    return Entry(path, meta, int(meta.get("size_bytes") or 0), used)


def entries(cache_dir: Path) -> list[Entry]:
    """Complete environments, most recently used first."""
    if not cache_dir.is_dir():
        return []
    found = [e for p in cache_dir.iterdir() if p.is_dir() and (e := read_entry(p)) is not None]
    return sorted(found, key=lambda e: e.last_used, reverse=True)


def touch(path: Path) -> None:
    """Mark an environment used now: the last to be evicted."""
    (path / LAST_USED).touch()


def evict(cache_dir: Path, max_bytes: int, keep: Path | None = None) -> list[Entry]:
    """Remove the least recently used environments until the rest fit in `max_bytes`; `keep`
    (the one a run is about to use) stays even if alone it is larger. Returns what was removed."""
    removed = []
    present = entries(cache_dir)
    total = sum(e.size_bytes for e in present)
    for entry in reversed(present):  # oldest use first
        if total <= max_bytes:
            break
        if keep is not None and entry.path == keep:
            continue
        remove(entry.path)
        total -= entry.size_bytes
        removed.append(entry)
    return removed


def remove(path: Path) -> None:
    """Take the folder out of the cache first (a rename is atomic), then delete it: a reader
    never finds a half-deleted environment with its meta.json still in place."""
    doomed = path.with_name(f"{BUILDING_PREFIX}removed-{path.name}-{os.getpid()}")
    try:
        path.rename(doomed)
    except FileNotFoundError:
        return
    shutil.rmtree(doomed, ignore_errors=True)


def stale_builds(cache_dir: Path, now: float | None = None) -> list[Path]:
    now = time.time() if now is None else now
    if not cache_dir.is_dir():
        return []
    return [
        p
        for p in cache_dir.iterdir()
        if p.name.startswith(BUILDING_PREFIX) and now - p.stat().st_mtime > STALE_BUILD_S
    ]


def clear(cache_dir: Path, name: str | None = None) -> list[Entry]:
    """Remove every environment (or those of stack `name`) and dead builds' leftovers."""
    gone = [e for e in entries(cache_dir) if name is None or e.name == name]
    for entry in gone:
        remove(entry.path)
    for leftover in stale_builds(cache_dir):
        shutil.rmtree(leftover, ignore_errors=True)
    return gone
