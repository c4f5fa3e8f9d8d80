"""An installed copy works end to end from outside the checkout: one run, a two-core sweep, its
report, a parity certificate and the learning curves, all through the installed `twinbench`.

The project is installed once per test run (conftest's `installed_site`, shared with
tests/test_packaging.py: `pip install --no-deps --target SITE` from a copy of the sources,
never from the checkout itself, so the checkout gains no build/ folder); every command then runs
in a fresh working directory outside the checkout with PYTHONPATH=SITE alone, the venv supplying
the dependencies. Each step asserts its exit status, that its files land under that working
directory, and the module-scoped checks assert that the code came from SITE and that nothing was
written into the checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from twinbench.paths import REPO_ROOT

pytestmark = pytest.mark.slow

# measure.warmup_steps=1: 3 steps leave 2 steady ones for the report (the default leaves none)
TINY = (
    "backend=torch",
    "model=mlp",
    "epochs=1",
    "max_steps=3",
    "measure.peak_probe=false",
    "measure.warmup_steps=1",
)
STEP_TIMEOUT_S = 600
SOURCES = {".py", ".md"}


def _checkout_state() -> set[str]:
    """The checkout's data files (results, logs, reports, Hydra's outputs) outside .git and the
    venv: what a run must not add to. Sources are left out: someone may be editing them."""
    skip = {".git", ".venv", "__pycache__", ".pytest_cache", ".ruff_cache"}
    return {
        str(p.relative_to(REPO_ROOT))
        for p in REPO_ROOT.rglob("*")
        if not skip.intersection(p.relative_to(REPO_ROOT).parts) and p.suffix not in SOURCES
    }


@pytest.fixture(scope="module")
def site(installed_site) -> Path:
    return installed_site


@pytest.fixture(scope="module")
def work(tmp_path_factory, site) -> Path:
    """The working directory every command runs in; the checkout is compared before and after."""
    before = _checkout_state()
    folder = tmp_path_factory.mktemp("work")
    yield folder
    assert _checkout_state() == before, "an installed copy wrote into the checkout"


def twinbench(site: Path, work: Path, *args: str) -> subprocess.CompletedProcess:
    """The installed console script, as a user starts it."""
    env = {**os.environ, "PYTHONPATH": str(site), "PYTHONUNBUFFERED": "1"}
    proc = subprocess.run(
        [sys.executable, str(site / "bin" / "twinbench"), *args],
        cwd=work,
        env=env,
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT_S,
    )
    assert proc.returncode == 0, f"twinbench {' '.join(args)}:\n{proc.stdout}\n{proc.stderr}"
    return proc


def test_the_code_that_runs_is_the_installed_copy(site, work):
    code = "import twinbench, analysis; print(twinbench.__file__, analysis.__file__)"
    env = {**os.environ, "PYTHONPATH": str(site)}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=work, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    for path in proc.stdout.split():
        assert Path(path).is_relative_to(site) and not Path(path).is_relative_to(REPO_ROOT)


def test_one_tiny_run(site, work):
    twinbench(site, work, "run", *TINY, "cpus=1", "hydra.run.dir=results/one")
    record = json.loads((work / "results" / "one" / "result.json").read_text())
    assert record["status"] == "ok" and record["cpus"] == 1


def test_a_sweep_over_two_core_counts_and_its_report(site, work):
    sweep = work / "results" / "sweep"
    proc = twinbench(site, work, "run", "-m", *TINY, "cpus=1,2", f"hydra.sweep.dir={sweep}")
    assert "report not written" not in proc.stdout + proc.stderr
    statuses = [json.loads(p.read_text())["status"] for p in sweep.rglob("result.json")]
    assert statuses == ["ok", "ok"]
    out = work / "report"
    twinbench(site, work, "report", str(sweep), "--out", str(out), "--quiet")
    assert (out / "report.html").is_file()


def test_parity_certifies_one_model_against_one_other_backend(site, work):
    proc = twinbench(site, work, "parity", "mlp", "--backends", "torch", "--quiet")
    assert "PASS" in proc.stdout
    cert = json.loads((work / "results" / "parity" / "mlp.torch.json").read_text())
    # The fingerprint covers the model's config, read from the conf/ shipped in the package.
    assert {"models/mlp.py", "conf/model/mlp.yaml"} <= set(cert["fingerprint"]["files"])


def test_learning_curves_over_two_seeds(site, work):
    out = work / "results" / "curves"
    args = ("curves", "mlp", "--seeds", "2", "--epochs", "1", "--max-steps", "3")
    proc = subprocess.run(
        [sys.executable, str(site / "bin" / "twinbench"), *args, "--backends", "torch,tensorflow"],
        cwd=work,
        env={**os.environ, "PYTHONPATH": str(site)},
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT_S,
    )
    # Three steps cannot settle whether the curves agree (exit 1 says they differ); what this
    # checks is that the command trains every run and writes its verdict.
    assert proc.returncode in (0, 1), proc.stderr
    verdict = json.loads((out / "mlp" / "agreement.json").read_text())
    assert set(verdict["histories"]) == {"torch", "tensorflow"}
    assert len(list(out.rglob("result.json"))) == 4
