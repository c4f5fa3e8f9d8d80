"""The stacks' environments (conf/stack/, docs/usage/stacks.md): list, build and clear the cache.

    twinbench stacks list                 # every cached environment: stack, pins, size, last use
    twinbench stacks build keras-3.12     # build ahead of a sweep (a sweep builds what it needs)
    twinbench stacks clear [NAME]         # remove every environment, or those of stack NAME

The cache folder and its size cap are `stacks.cache_dir` and `stacks.max_mb` in conf/config.yaml
(--cache-dir overrides the folder). A sweep evicts the least recently used environments past
the cap after each build. Exit status 0, or 2 for bad input.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path
from typing import Any

from twinbench.config.checks import fail
from twinbench.config.choices import unknown_choice
from twinbench.config.spec import CONF_DIR, ConfigError, group_choices
from twinbench.stacks import build, cache
from twinbench.stacks.definition import CacheSettings, cache_settings, from_config, load
from twinbench.stacks.prepare import check_cache_dir

SUMMARY = "framework-release environments: list, build or clear their cache (twinbench stacks list)"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("action", choices=("list", "build", "clear"))
    parser.add_argument(
        "stacks",
        nargs="*",
        help=f"stack names (build: required; clear: default all): "
        f"{', '.join(group_choices('stack'))}",
    )
    parser.add_argument("--cache-dir", type=Path, help="default: stacks.cache_dir of conf/")


def _settings(cache_dir: Path | None) -> CacheSettings:
    from omegaconf import OmegaConf

    section: dict[str, Any] = OmegaConf.to_container(  # type: ignore[assignment]
        OmegaConf.load(CONF_DIR / "config.yaml").stacks
    )
    if cache_dir is not None:
        section["cache_dir"] = str(cache_dir)
    return cache_settings(section)


def _stack(name: str) -> Any:
    return from_config(load(name))


def describe(entry: cache.Entry, now: float) -> str:
    pins = ", ".join(f"{n}=={v}" for n, v in sorted((entry.meta.get("pins") or {}).items()))
    ago = now - entry.last_used
    return (
        f"{entry.name:<16} {pins:<32} {entry.size_bytes / 2**20:8.1f} MB  "
        f"used {_ago(ago)} ago  built in {entry.meta.get('build_s', 0):.1f} s  {entry.path}"
    )


def _ago(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit}"
    return f"{seconds:.0f}s"


def run(args: argparse.Namespace) -> int:
    settings = _settings(args.cache_dir)
    try:
        if args.action == "list":
            found = cache.entries(settings.cache_dir)
            total = sum(e.size_bytes for e in found)
            print(
                f"{settings.cache_dir}: {len(found)} environment(s), {total / 2**20:.1f} MB of "
                f"{settings.max_bytes >> 20} MB (stacks.max_mb)"
            )
            now = time.time()
            for entry in found:
                print("  " + describe(entry, now))
            return 0
        if args.action == "build":
            if not args.stacks:
                raise ConfigError("twinbench stacks build needs stack names, e.g. keras-3.12")
            check_cache_dir(settings.cache_dir)
            for name in args.stacks:
                env = build.ensure(_stack(name), settings)
                print(f"{name}: {env or 'the project environment, nothing to build'}")
            return 0
        # A name neither in conf/stack/ nor in the cache is a typo: "removed 0" would read as
        # done. A cached stack whose yaml has since gone can still be cleared by its name.
        cached = {e.name for e in cache.entries(settings.cache_dir)}
        for name in args.stacks:
            if name not in cached and name not in group_choices("stack"):
                raise unknown_choice("stack", name, sorted(cached | set(group_choices("stack"))))
        names = args.stacks or [None]
        gone = [e for name in names for e in cache.clear(settings.cache_dir, name)]
        freed = sum(e.size_bytes for e in gone)
        print(f"removed {len(gone)} environment(s), {freed / 2**20:.1f} MB")
        return 0
    except ConfigError as exc:
        fail(str(exc))
