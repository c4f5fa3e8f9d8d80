"""Every long-running subcommand stops on SIGINT and SIGTERM as `run` does (issue 45): within
seconds, with the processes it started, in one line, exit 128 + n. `curves` ignored a SIGINT
(a shell's `&` starts a job with SIGINT ignored) and trained on for two minutes; a SIGTERM
killed it alone while its run.py child trained on.

In process, cheaply: each command's work is replaced by a child process at work and the signal,
sent to this process. One test starts the real `curves` as a process, as the issue did."""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

import analysis.__main__ as analysis_cli
from twinbench.cli import bench, calibrate, curves, curves_table
from twinbench.cli.main import main as twinbench_main
from twinbench.measure import noise
from twinbench.parity import cli as parity_cli
from twinbench.paths import REPO_ROOT

# It times how soon each command stops after a signal (tests/sharing.py).
pytestmark = pytest.mark.serial

SIGNALS = [signal.SIGINT, signal.SIGTERM]
TINY = ["--epochs", "1", "--max-steps", "2", "--cpus", "1"]


class Unguarded(Exception):
    """A SIGTERM no command caught: raised here instead of ending pytest itself."""


@pytest.fixture
def as_in_the_background():
    """SIGINT ignored, as a shell's `&` leaves it; SIGTERM raises Unguarded where nothing else
    takes it. Both put back afterwards."""

    def unguarded(signum, frame):
        raise Unguarded(signum)

    previous = {
        signal.SIGINT: signal.signal(signal.SIGINT, signal.SIG_IGN),
        signal.SIGTERM: signal.signal(signal.SIGTERM, unguarded),
    }
    yield
    for signum, handler in previous.items():
        signal.signal(signum, handler)


class Work:
    """A command's work: a child process at work, then the signal; returns 0 if it got through
    (the signal did nothing)."""

    def __init__(self, signum: int) -> None:
        self.signum, self.child = signum, None

    def __call__(self, *args, **kwargs):
        self.child = subprocess.Popen(["sleep", "60"])
        os.kill(os.getpid(), self.signum)
        time.sleep(2)  # a guarded command never gets here
        self.child.kill()
        return 0


def _command_runs(name: str, work: Work, out: Path, monkeypatch) -> int:
    """Run subcommand `name` in process with its work replaced by `work`."""
    if name in ("curves", "curves_table"):
        monkeypatch.setattr(curves, "train", work)
        if name == "curves":
            return curves.main(["mlp", "--seeds", "2", "--out", str(out), *TINY])
        return curves_table.main(["--models", "mlp", "--out", str(out), *TINY])
    if name == "calibrate":
        monkeypatch.setattr(noise, "calibrate", work)
        # 11 steps: the shortest run past the default warm-up, which calibrate asks of its runs
        steps = ["--epochs", "1", "--max-steps", "11", "--cpus", "1"]
        return calibrate.main(["--cache-dir", str(out), *steps])
    if name == "bench":
        monkeypatch.setattr(bench.runpy, "run_module", work)
        return twinbench_main(["bench", "overhead"])
    if name == "parity":
        monkeypatch.setattr(parity_cli, "_certify", work)
        monkeypatch.setattr(parity_cli.progress, "cli_logging", lambda *a: None)  # global state
        return twinbench_main(["parity", "mlp", "--backends", "torch"])
    return analysis_cli.guarded(work, argparse.Namespace())  # report, collect


PROGS = {
    "curves": "twinbench curves",
    "curves_table": "twinbench curves_table",
    "calibrate": "twinbench calibrate",
    "bench": "twinbench bench",
    "parity": "twinbench parity",
    "report": "analysis",
}


@pytest.mark.parametrize("signum", SIGNALS, ids=lambda s: signal.Signals(s).name)
@pytest.mark.parametrize("name", list(PROGS))
def test_a_stop_signal_ends_the_subcommand_and_what_it_started_in_one_line(
    name, signum, tmp_path, monkeypatch, capsys, as_in_the_background
):
    work = Work(signum)
    assert _command_runs(name, work, tmp_path, monkeypatch) == 128 + signum
    line = capsys.readouterr().err.strip().splitlines()[-1]
    assert line.startswith(f"{PROGS[name]}: interrupted by {signal.Signals(signum).name}")
    if name not in ("parity", "report"):  # their own children go their own way (stages.py)
        assert work.child.poll() is not None, "the command's child outlived it"


def test_curves_started_in_the_background_stops_on_sigint_with_its_runs(tmp_path):
    """The issue's case as a process: `twinbench curves ... &`, then `kill -INT` to it."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "twinbench.cli", "curves", "mlp", "--seeds", "2", *TINY,
         "--backends", "torch,keras_torch", "--out", str(tmp_path)],
        cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN),
    )  # fmt: skip
    parent, started = psutil.Process(proc.pid), []
    try:
        deadline = time.monotonic() + 60
        while not started and time.monotonic() < deadline:  # its first run.py child
            started = [p for p in parent.children(recursive=True) if _is_run(p)]
            time.sleep(0.1)
        assert started, "curves never started a run"
        started = parent.children(recursive=True)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
        assert proc.returncode == 128 + signal.SIGINT, err[-2000:]
        assert err.strip().splitlines()[-1].startswith("twinbench curves: interrupted by SIGINT")
        _, alive = psutil.wait_procs(started, timeout=5)
        assert not alive, f"left running: {alive}"
    finally:
        for p in [parent, *started]:
            if p.is_running():
                p.kill()


def _is_run(proc: psutil.Process) -> bool:
    try:
        return "twinbench.cli.run" in proc.cmdline()
    except psutil.Error:
        return False
