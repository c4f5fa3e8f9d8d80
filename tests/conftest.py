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

CORES = len(cpu.allowed_cpus())


def run_cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """`python run.py ARGS` from the repository root, as the README tells users to run it."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    return subprocess.run(
        [sys.executable, "run.py", *args],
        cwd=REPO_ROOT,
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
