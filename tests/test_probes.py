"""Per-library probe code (frameworks/probes/<library>.py), looked up by name: twinbench's machine
peak and speed of light name no library themselves."""

from __future__ import annotations

import ast
import importlib.util

import pytest

from frameworks import probes, registry
from twinbench.measure import peak
from twinbench.paths import REPO_ROOT

PROBES = REPO_ROOT / "frameworks" / "probes"


def _functions(library: str) -> set[str]:
    tree = ast.parse((PROBES / f"{library}.py").read_text())
    return {n.name for n in tree.body if isinstance(n, ast.FunctionDef)}


def test_every_runtime_in_the_registry_has_a_probe_with_both_entry_points():
    runtimes = {registry.spec(n).runtime for n in registry.names()}
    assert runtimes <= set(probes.libraries())
    assert probes.libraries() == peak.LIBRARIES  # the machine peak probes exactly these
    for library in probes.libraries():
        assert {"gemm", "kernel_op"} <= _functions(library), library


def test_a_library_without_a_probe_is_refused_by_name():
    with pytest.raises(ValueError, match="no probe for 'mxnet'"):
        probes.module("mxnet")


def test_the_neutral_blas_probe_times_gemms_and_has_no_convolution():
    op, kernel = probes.gemm("numpy", 8)
    assert op().shape == (8, 8) and kernel.startswith("numpy (")
    assert probes.kernel_op("numpy", "conv2d", (1, 4, 4, 2, 3, 3)) is None


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="jax not installed")
def test_the_jax_probe_runs_its_dot_and_forward_convolution():
    from frameworks.probes import jax as jax_probe  # loads jax: only here

    op, kernel = jax_probe.gemm(16)
    assert op().shape == (16, 16) and "XLA" in kernel
    conv = jax_probe.kernel_op("conv2d", (2, 6, 6, 3, 4, 3))
    assert conv().shape == (2, 6, 6, 4)  # b, oh, ow, co
    assert jax_probe.kernel_op("conv2d_weight_grad", (2, 6, 6, 3, 4, 3)) is None
