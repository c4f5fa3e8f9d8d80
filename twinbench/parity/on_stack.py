"""`python -m twinbench.parity MODEL --stack S`: certify a model on a stack (conf/stack/).

The certifying process and its stages must run the stack's releases, so the command builds the
stack (or finds it cached), loads every backend it certifies in it, and starts itself again on the
stack's interpreter; the second start knows it is there by STACK_ENV and certifies into the
stack's own folder of certificates (certificates.directory_for).
"""

from __future__ import annotations

import os
import sys
from typing import Any

from twinbench.paths import REPO_ROOT
from twinbench.stacks import build, prepare
from twinbench.stacks.definition import cache_settings, from_config, load

STACK_ENV = "TWINBENCH_PARITY_STACK"  # set in the restarted process: the stack it runs on


def _settings() -> Any:
    from omegaconf import OmegaConf

    from twinbench.paths import CONF_DIR

    return cache_settings(OmegaConf.to_container(OmegaConf.load(CONF_DIR / "config.yaml").stacks))


def run_on_stack(name: str, argv: list[str], backends: list[str]) -> dict[str, Any] | None:
    """The stack's config node when this process runs on it (None for `pinned`); else builds
    it and replaces this process by the same command on its interpreter (never returns).
    Raises ConfigError (one line) for an unknown stack or one that cannot be built or loaded."""
    node = load(name)
    stack = from_config(node)
    if stack.pinned:
        return None
    if os.environ.get(STACK_ENV) == name:
        return node
    settings = _settings()
    prepare.check_cache_dir(settings.cache_dir)
    env = build.ensure(stack, settings)
    assert env is not None
    for backend in backends:  # every backend the command certifies, else the registry's all
        prepare.check_backend(stack, env, backend, settings.build_timeout_s, build.say_on_stderr)
    python = str(env / "bin" / "python")
    environ = {**os.environ, STACK_ENV: name}
    environ["PYTHONPATH"] = os.pathsep.join(
        filter(None, [str(REPO_ROOT), environ.get("PYTHONPATH")])
    )
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(python, [python, "-m", "twinbench.parity", *argv], environ)
    raise AssertionError("unreachable")  # execve replaced this process
