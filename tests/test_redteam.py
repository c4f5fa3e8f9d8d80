"""Red team: a hostile user's inputs and faults, each answered as the README promises.

Nothing lost (a finished result survives any stop), nothing orphaned (no worker outlives its
parent), and bad input refused in one line before any work starts. Runs are tiny (mlp, one epoch,
two steps) and the config-only cases import no framework.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from twinbench import REPO_ROOT

from .conftest import run_cli

TINY = ("model=mlp", "epochs=1", "max_steps=2")


def start_cli(*args: str, log: Path) -> subprocess.Popen:
    """`python run.py ARGS` in the background, its output in `log`."""
    with log.open("w") as out:  # the child keeps its own copy of the descriptor
        return subprocess.Popen(
            [sys.executable, "run.py", *args],
            cwd=REPO_ROOT,
            stdout=out,
            stderr=subprocess.STDOUT,
            text=True,
            env={**os.environ, "PYTHONUNBUFFERED": "1"},
        )


def children(pid: int) -> list[int]:
    found = []
    for task in Path(f"/proc/{pid}/task").glob("*"):
        with contextlib.suppress(OSError):  # a thread that ended meanwhile
            found += [int(c) for c in (task / "children").read_text().split()]
    return found


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def wait_for(condition, timeout: float = 300, what: str = "") -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(0.05)


# --- processes and signals (items 1-3) --------------------------------------------------------


@pytest.fixture(scope="module")
def finished_job(tmp_path_factory) -> Path:
    """A sweep dir whose job seed=0 has finished: the 'nothing finished is lost' witness."""
    sweep = tmp_path_factory.mktemp("finished")
    proc = run_cli("-m", "seed=0", *TINY, f"hydra.sweep.dir={sweep}")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return sweep


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT, signal.SIGKILL])
def test_a_stopped_parent_leaves_no_worker_and_loses_nothing_finished(
    signum, finished_job, tmp_path
):
    sweep = tmp_path / "sweep"
    shutil.copytree(finished_job, sweep)
    (done_dir,) = [p for p in sweep.iterdir() if "seed=0" in p.name]
    finished = (done_dir / "result.json").read_text()

    log = tmp_path / "out.log"
    parent = start_cli("-m", "seed=0,1", *TINY, f"hydra.sweep.dir={sweep}", log=log)
    try:
        wait_for(lambda: children(parent.pid), what="the worker of job seed=1")
        (worker,) = children(parent.pid)
        os.kill(parent.pid, signum)
        rc = parent.wait(timeout=60)
        wait_for(lambda: not alive(worker), timeout=10, what=f"worker {worker} to die")
    finally:
        if parent.poll() is None:
            parent.kill()
    output = log.read_text()

    assert rc == (-signal.SIGKILL if signum == signal.SIGKILL else 128 + signum)
    if signum != signal.SIGKILL:
        (line,) = [ln for ln in output.splitlines() if "twinbench:" in ln]
        assert line.startswith(f"twinbench: interrupted by {signal.Signals(signum).name}")
        assert "Traceback" not in output and "KeyboardInterrupt" not in output
    assert (done_dir / "result.json").read_text() == finished  # nothing finished is lost
    (stopped_dir,) = [p for p in sweep.iterdir() if "seed=1" in p.name]
    assert not (stopped_dir / "result.json").exists()  # and nothing half-done looks finished
