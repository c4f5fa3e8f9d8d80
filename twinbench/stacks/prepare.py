"""Every stack of a sweep made ready before its first run: built (or found in the cache) and its
backends loaded once, so a sweep with one bad stack runs none (twinbench/config/checks.py calls
`prepare_all` after checking every job). Also the interpreter a run's worker starts with."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from twinbench.config.choices import ConfigError
from twinbench.config.folders import check_writable_dir
from twinbench.paths import REPO_ROOT
from twinbench.result import results
from twinbench.stacks import build
from twinbench.stacks.definition import Stack, cache_settings, from_config

CHECKS_FILE = "backends.json"  # inside an environment: each backend's load check, once


def check_cache_dir(path: Path) -> None:
    """The cache folder is, or can become, a folder this process writes: else one line."""
    check_writable_dir(
        f"stacks.cache_dir={path}", path, "set stacks.cache_dir to a writable folder"
    )


def prepare_all(configs: Iterable[dict[str, Any]], say: build.Say = build.say_on_stderr) -> None:
    """Build every stack the configs name and load each of its backends in it; the first
    failure raises StackError (one line, naming the stack and the pin)."""
    done: set[tuple[str, str]] = set()
    for config in configs:
        stack = from_config(config.get("stack") or {"name": "pinned"})
        if stack.pinned:
            continue
        backend = config["backend"]["name"]
        settings = cache_settings(config.get("stacks"))
        key = (str(settings.cache_dir), stack.name, *stack.requirements(), backend)
        if key in done:
            continue
        check_cache_dir(settings.cache_dir)
        env = build.ensure(stack, settings, say)
        assert env is not None
        check_backend(stack, env, backend, settings.build_timeout_s, say)
        done.add(key)


def check_backend(stack: Stack, env: Path, backend: str, timeout: float, say: build.Say) -> None:
    """Can the stack's interpreter load `backend` (Keras its runtime)? Asked once per
    environment and backend (frameworks/stack_probe.py), the answer kept beside it."""
    known_file = env / CHECKS_FILE
    try:
        known = json.loads(known_file.read_text())
    except (OSError, ValueError):
        known = {}
    if backend not in known:
        say(f"stack {stack.name}: loading backend {backend} in its interpreter (once)")
        known[backend] = _probe(env, backend, timeout)
        results.write_atomic(known_file, known)
    if known[backend] is not None:
        raise build.StackError(
            f"stack {stack.name} ({', '.join(stack.requirements())}) cannot load backend "
            f"{backend}: {known[backend]}"
        )


def _probe(env: Path, backend: str, timeout: float) -> str | None:
    cmd = [str(env / "bin" / "python"), "-m", "frameworks.stack_probe", backend]
    environ = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    try:
        done = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=environ)
    except subprocess.TimeoutExpired:
        return f"loading it took longer than {timeout:g} s"
    lines = [line for line in done.stdout.splitlines() if line.startswith("{")]
    if not lines:
        tail = [line for line in done.stderr.splitlines() if line.strip()]
        return tail[-1] if tail else f"the probe exited with code {done.returncode}"
    return json.loads(lines[-1]).get("error")


def interpreter(config: dict[str, Any]) -> str:
    """The interpreter a run's worker starts with: the stack's, built if need be (normally the
    sweep's checks built it already, and this only marks it used), or this one for `pinned`."""
    stack = from_config(config.get("stack") or {"name": "pinned"})
    env = build.ensure(stack, cache_settings(config.get("stacks")))
    return sys.executable if env is None else str(env / "bin" / "python")


__all__ = ["ConfigError", "check_backend", "interpreter", "prepare_all"]
