"""Following docs/guides/adding-a-workload.md in a temporary copy of the repository, step by step,
so a test can show the page works and a planted mistake can show each step can fail.

The steps, cheapest first:
1. `repository_copy`: the packages pyproject.toml lists, conf/, run.py and pyproject.toml (no
   virtual environment, no results), into a fresh folder;
2. `write_blocks`: every `# file:` block of the page, written where its first line says;
3. `contract_failures`: the model module and its yaml checked against the model-module contract
   (models/__init__.py), without loading a framework;
4. `page_command` and `start`: the page's own commands (train on every backend, certify), run
   in the copy as subprocesses.
"""

from __future__ import annotations

import inspect
import os
import shlex
import shutil
import signal
import subprocess
import sys
import tomllib
from importlib import util
from pathlib import Path
from types import ModuleType

from tests import guide_pages
from twinbench.paths import REPO_ROOT

PAGE = guide_pages.PAGES_DIR / "adding-a-workload.md"
# What models/__init__.py's docstring requires of every model module.
REQUIRED = ("torch_model", "keras_model", "OUTPUT", "LAYERS")
HALVES = ("torch_model", "keras_model")
OUTPUTS = ("softmax", "sigmoid")
# Overrides the test adds to the page's training command: no machine-peak probe, one warm-up
# step (and, in `start`, a temporary folder of its own, where the measurement lock lives: other
# runs on this machine must not wait on the test, nor it on them).
QUIET_MEASURE = ("measure.warmup_steps=1", "measure.peak_probe=false")


def top_level_packages() -> list[str]:
    """The project's packages as pyproject.toml lists them, by their top folder."""
    listed = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    return sorted({name.split(".")[0] for name in listed["packages"]})


def repository_copy(dest: Path) -> Path:
    """What running twinbench from a checkout needs, copied into `dest`."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "results")
    for folder in [*top_level_packages(), "conf"]:
        shutil.copytree(REPO_ROOT / folder, dest / folder, ignore=ignore)
    for file in ("run.py", "pyproject.toml"):
        shutil.copy2(REPO_ROOT / file, dest / file)
    return dest


def write_blocks(copy: Path, blocks: dict[str, str]) -> None:
    for path, content in blocks.items():
        target = copy / path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(content)


def workload_of(blocks: dict[str, str]) -> str:
    """The workload the page adds: the stem of its one conf/model/ block."""
    (name,) = [Path(p).stem for p in blocks if p.startswith("conf/model/")]
    return name


def _load_module(path: Path, name: str) -> ModuleType:
    spec = util.spec_from_file_location(f"page_{name}", path)
    module = util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def contract_failures(copy: Path, name: str) -> list[str]:
    """What the workload's two files get wrong against the model-module contract, one line each
    (empty when nothing): checked from the files alone, no framework loaded."""
    from omegaconf import OmegaConf

    from frameworks.torch_native import weight_layout
    from models import flops

    module_path = copy / "models" / f"{name}.py"
    conf_path = copy / "conf" / "model" / f"{name}.yaml"
    absent = [str(p.relative_to(copy)) for p in (module_path, conf_path) if not p.is_file()]
    if absent:
        return [f"missing {p}" for p in absent]
    cfg = OmegaConf.to_container(OmegaConf.load(conf_path), resolve=True)
    module = _load_module(module_path, name)
    failures = [f"models/{name}.py has no {a}" for a in REQUIRED if not hasattr(module, a)]
    if cfg.get("name") != name:
        failures.append(f"conf/model/{name}.yaml names itself {cfg.get('name')!r}")
    if not isinstance(cfg.get("expected_params"), int):
        failures.append(f"conf/model/{name}.yaml has no whole expected_params")
    arch = set(cfg.get("arch") or {})
    for half in (h for h in HALVES if hasattr(module, h)):
        if set(inspect.signature(getattr(module, half)).parameters) != arch:
            failures.append(f"{half}'s arguments are not the arch keys {sorted(arch)}")
    if getattr(module, "OUTPUT", OUTPUTS[0]) not in OUTPUTS:
        failures.append(f"OUTPUT must be one of {OUTPUTS}")
    layers = getattr(module, "LAYERS", {})
    unknown = sorted(set(layers.values()) - set(weight_layout.TO_TORCH))
    if unknown:
        failures.append(f"LAYERS kinds without a weight layout: {unknown}")
    if hasattr(module, "flop_products") and hasattr(module, "LAYERS"):
        try:
            products = module.flop_products(**cfg["arch"])
        except TypeError as exc:
            return [*failures, f"flop_products does not take the arch keys: {exc}"]
        strangers = sorted({p.layer.split(".")[0] for p in products} - set(layers))
        if strangers or not all(isinstance(p, flops.Product) for p in products):
            failures.append(f"flop_products names layers outside LAYERS: {strangers}")
    return failures


def page_command(text: str, prefix: str) -> list[str]:
    """The page's one command line that starts with `prefix` (in its fenced blocks), split as a
    shell would, with `python` replaced by the interpreter running the tests."""
    lines = [
        line.split(" #")[0].strip()
        for block in guide_pages.split_fences(text)[0]
        for line in block
        if line.startswith(prefix)
    ]
    assert len(lines) == 1, f"the page should have one command starting {prefix!r}: {lines}"
    words = shlex.split(lines[0])
    return [sys.executable if w == "python" else w for w in words]


def start(copy: Path, command: list[str], log: Path) -> subprocess.Popen:
    """The command running in the copy, its output going to `log` (two can run at once), with
    the copy's own temporary folder (conf/config.yaml puts the measurement lock there)."""
    tmp = copy.parent / "tmp"
    tmp.mkdir(exist_ok=True)
    env = {**os.environ, "TMPDIR": str(tmp), "PYTHONUNBUFFERED": "1"}
    with log.open("w") as out:
        return subprocess.Popen(
            command,
            cwd=copy,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            env=env,
            start_new_session=True,  # its own process group: a timeout ends its workers too
        )


def finish(proc: subprocess.Popen, log: Path, timeout: float) -> tuple[int, str]:
    """The command's exit status and the tail of its output; past `timeout`, the command and
    every process it started are killed."""
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    return proc.returncode, log.read_text()[-4000:]
