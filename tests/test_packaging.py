"""`pip install .` gives a working `twinbench` command that finds its conf/ away from a checkout.

The install goes into a throwaway --target folder from a copy of the sources (never into the
project's venv, never leaving build/ in the checkout); dependencies come from the running venv.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest


@pytest.fixture(scope="module")
def installed(installed_site) -> Path:
    return installed_site


def _twinbench(site: Path, cwd: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(site)}
    return subprocess.run(
        [sys.executable, str(site / "bin" / "twinbench"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_installed_command_lists_its_commands(installed, tmp_path):
    proc = _twinbench(installed, tmp_path, "--help")
    assert proc.returncode == 0, proc.stderr
    for command in ("run", "report", "collect", "parity", "mlflow", "curves", "bench"):
        assert f"\n  {command} " in proc.stdout


def test_an_installed_copy_composes_its_shipped_conf_and_refuses_bad_input(installed, tmp_path):
    proc = _twinbench(installed, tmp_path, "run", "--cfg", "job", "model=cnn", "backend=tensorflow")
    assert proc.returncode == 0, proc.stderr
    assert "name: cnn" in proc.stdout and "name: tensorflow" in proc.stdout
    bad = _twinbench(installed, tmp_path, "run", "model=nope")
    assert bad.returncode == 2 and "choose one of: bilstm" in bad.stderr


def test_an_installed_copy_finds_its_pricing_tables_templates_and_the_callers_results(
    installed, tmp_path
):
    code = (
        "import twinbench.paths as tb, analysis.compute.pricing as p;"
        "import analysis.compute.certificates as c;"
        "from analysis.render import htmlkit; htmlkit.render('csv.html.j2', href='x');"
        "htmlkit.prose('explain').verdict_heading();"  # the sections' prose ships too
        "print(tb.INSTALLED, p.load(p.DEFAULT_TABLE).currency, c.CERT_DIR)"
    )
    env = {**os.environ, "PYTHONPATH": str(installed)}
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "USD", str(tmp_path / "results" / "parity")]


def test_unknown_commands_are_one_line_and_exit_2(installed, tmp_path):
    proc = _twinbench(installed, tmp_path, "train")
    assert proc.returncode == 2
    # every command of the registry, in its order (calibrate came with decided comparisons,
    # curves_table with issue 45's one parser per command, aa with issue 40's A/A campaign,
    # stacks with issue 43's framework releases)
    assert proc.stderr.strip() == (
        "twinbench: error: unknown command 'train'; choose one of: run, report, collect, parity, "
        "mlflow, curves, curves_table, calibrate, aa, stacks, bench"
    )


def test_an_installed_copy_says_the_benchmarks_stay_with_the_checkout(installed, tmp_path):
    listing = _twinbench(installed, tmp_path, "bench", "--help")
    assert listing.returncode == 0
    assert "they ship with the checkout, not the installed package" in listing.stdout
    proc = _twinbench(installed, tmp_path, "bench", "overhead")
    assert proc.returncode == 2
    # it names the folder it looked in (the working directory), which holds no benchmarks/
    assert proc.stderr.strip() == (
        f"twinbench: error: unknown benchmark 'overhead'; choose one of: none in {tmp_path} "
        "(they ship with the checkout: run this from one)"
    )
