"""A probe process the worker starts (GEMM peak, speed of light, kernel probe) dies with the
worker: `kill -9` of run.py kills the worker through its parent-death signal, and nothing the
worker started may run on as an orphan holding cores the next measurement needs."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from twinbench.paths import REPO_ROOT

pytestmark = pytest.mark.serial  # it times how soon a probe dies with its parent (tests/sharing.py)

# A stand-in worker: starts numpy's GEMM probe with far more repeats than it will live for.
STAND_IN = "from twinbench.measure import peak\npeak._run_probe('numpy', 512, 10**9, 3600.0, 1)\n"


def _wait_for_child(parent: psutil.Process, timeout_s: float = 60) -> psutil.Process:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        children = parent.children()
        if children:
            return children[0]
        time.sleep(0.1)
    raise AssertionError("the stand-in worker never started its probe")


def test_the_gemm_probe_dies_when_the_process_that_started_it_is_killed():
    worker = subprocess.Popen([sys.executable, "-c", STAND_IN], cwd=REPO_ROOT)
    probe = _wait_for_child(psutil.Process(worker.pid))
    try:
        time.sleep(1.0)  # the probe is past its start-up and inside its GEMM loop
        os.kill(worker.pid, signal.SIGKILL)
        worker.wait(timeout=10)
        _gone, alive = psutil.wait_procs([probe], timeout=10)
        assert not alive, f"the probe (pid {probe.pid}) outlived the process that started it"
    finally:
        if probe.is_running():
            probe.kill()
