"""Shared fixtures: the CLI as users run it, and configs composed from the real conf/."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from twinbench.machine import cpu
from twinbench.paths import REPO_ROOT

from . import sharing

CORES = len(cpu.allowed_cpus())


# --- sharing the machine between xdist workers (tests/sharing.py says why) -------------------


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto`: one worker per core this process may use (not per core the host has: a
    cgroup or taskset of 2 on a 64-core host means 2)."""
    return max(1, CORES)


def pytest_configure(config) -> None:
    config._twinbench_own_tmpdir = sharing.own_tmpdir()


def pytest_unconfigure(config) -> None:
    sharing.remove_tmpdir(getattr(config, "_twinbench_own_tmpdir", None))


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items) -> None:
    """Keep each module on one worker (its module-scoped fixtures are built once) unless a test
    names its own group: xdist's `loadgroup` reads this mark after us."""
    for item in items:
        if item.get_closest_marker("xdist_group") is None:
            item.add_marker(pytest.mark.xdist_group(item.module.__name__))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Setup, call and teardown of each test (module fixtures included) under this run's test
    lock: alone for `serial` tests, beside others for the rest."""
    run_dir = item.config._tmp_path_factory.getbasetemp().parent
    with sharing.machine_share(item.get_closest_marker("serial") is not None, run_dir):
        yield


def run_cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """`python run.py ARGS` from the repository root, as the README tells users to run it."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    affinity = sharing.child_affinity(args)
    return subprocess.run(
        [sys.executable, "run.py", *args],
        cwd=REPO_ROOT,
        preexec_fn=(lambda: os.sched_setaffinity(0, affinity)) if affinity else None,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def read_result(run_dir: Path) -> dict:
    return json.loads((Path(run_dir) / "result.json").read_text())


@pytest.fixture
def compose():
    """Compose conf/ with overrides through Hydra's compose API, as run.py would."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from omegaconf import OmegaConf

    def _compose(*overrides: str) -> dict:
        with initialize_config_dir(str(REPO_ROOT / "conf"), version_base="1.3"):
            cfg = hydra_compose("config", overrides=list(overrides))
        return OmegaConf.to_container(cfg, resolve=True)

    return _compose


needs_two_cores = pytest.mark.skipif(CORES < 2, reason="needs at least 2 allowed cores")


@pytest.fixture(scope="session")
def tiny_sweep(tmp_path_factory):
    """mlp and cnn on both frameworks, 2 epochs of 8 steps, one core: four fresh workers
    (shared by the budget and profile tests; `extra` overrides make another sweep)."""
    return _tiny_sweep(tmp_path_factory.mktemp("tiny_sweep"))


TINY_SWEEP = (
    "-m",
    "backend=torch,tensorflow",
    "model=mlp,cnn",
    "cpus=1",
    "epochs=2",
    "max_steps=8",
    "measure.warmup_steps=2",
    "measure.peak_probe=false",
)


def _tiny_sweep(out: Path, *extra: str):
    proc = run_cli(*TINY_SWEEP, *extra, f"hydra.sweep.dir={out}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = [read_result(p.parent) | {"_dir": p.parent} for p in sorted(out.rglob("result.json"))]
    return proc, records
