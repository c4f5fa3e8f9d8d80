"""benchmarks/diagnostics: every one-off experiment behind a dated finding still imports against
today's layout, and importing it runs nothing (no pinning, no framework loaded)."""

from __future__ import annotations

import importlib
import os
import pkgutil
import subprocess
import sys

import pytest

import benchmarks.diagnostics as diagnostics
from twinbench.paths import REPO_ROOT

MODULES = sorted(m.name for m in pkgutil.iter_modules(diagnostics.__path__))


def test_the_package_holds_the_diagnostics_the_findings_cite():
    expected = {"fresh_validate", "keras_feed", "validate_inproc", "worker_state"}
    assert expected <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_a_diagnostic_imports_without_doing_its_work(name):
    affinity = os.sched_getaffinity(0)
    module = importlib.import_module(f"benchmarks.diagnostics.{name}")
    assert os.sched_getaffinity(0) == affinity  # the CPU budget waits for main()
    if name != "budget":
        assert callable(module.main)


def test_importing_every_diagnostic_loads_no_framework():
    # A fresh interpreter: this test process may have loaded a framework for other tests.
    code = (
        "import importlib, sys\n"
        + "".join(f"importlib.import_module('benchmarks.diagnostics.{n}')\n" for n in MODULES)
        + "print(sorted(m for m in ('tensorflow', 'torch', 'keras', 'jax') if m in sys.modules))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    assert out.stdout.strip() == "[]"
