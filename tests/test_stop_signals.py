"""A stop signal ends a tool in one line and leaves nothing behind (issue 28): SIGTERM to
`python -m twinbench.parity` used to exit -15 with no message, its stage running on as an orphan
and its temporary files left; SIGINT gave a traceback."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import psutil
import pytest

from twinbench.paths import REPO_ROOT

pytestmark = pytest.mark.serial  # it times how soon a signal stops each command (tests/sharing.py)


def _stage_of(parent: psutil.Process, timeout_s: float = 120) -> psutil.Process:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for child in parent.children(recursive=True):
            try:
                if "--stage" in child.cmdline():
                    return child
            except psutil.NoSuchProcess:
                continue
        time.sleep(0.2)
    raise AssertionError("parity never started a stage")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_a_stopped_parity_check_says_so_once_and_leaves_no_stage_or_files(tmp_path, signum):
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "twinbench.parity", "mlp", "--backends", "torch"],
        cwd=REPO_ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "TMPDIR": str(tmp)},
    )
    stage = _stage_of(psutil.Process(proc.pid))
    try:
        proc.send_signal(signum)
        _, err = proc.communicate(timeout=60)
        assert proc.returncode == 128 + signum
        lines = err.strip().splitlines()
        assert "Traceback" not in err and lines[-1].startswith("twinbench parity: interrupted by")
        _, alive = psutil.wait_procs([stage], timeout=10)
        assert not alive, "the stage outlived the parity check"
        assert list(tmp.iterdir()) == [], "temporary files were left behind"
    finally:
        if stage.is_running():
            stage.kill()
        if proc.poll() is None:
            proc.kill()


def test_a_report_stopped_half_way_leaves_the_earlier_report_as_it_was(
    tmp_path, monkeypatch, capsys
):
    """Ctrl-C in the report writer gave a traceback and half-written report files."""
    from analysis.__main__ import main
    from analysis.render import contents
    from analysis.render.page import Section
    from tests import test_analysis_fakes as fakes

    fakes.sweep(tmp_path / "runs", {("torch", 1): [[1.0, 1.1]], ("tensorflow", 1): [[1.2, 1.3]]})
    out = tmp_path / "report"
    assert main([str(tmp_path / "runs"), "--out", str(out)]) == 0
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}

    def stop(page, an):
        raise KeyboardInterrupt

    last = contents.SECTIONS[-1]  # every other section has written its figures by then
    monkeypatch.setattr(
        contents, "SECTIONS", [*contents.SECTIONS[:-1], Section(last.id, last.nav, stop)]
    )
    capsys.readouterr()
    assert main([str(tmp_path / "runs"), "--out", str(out)]) == 128 + signal.SIGINT
    err = capsys.readouterr().err
    assert "Traceback" not in err and err.strip().splitlines()[-1].startswith(
        "analysis: interrupted by SIGINT"
    )
    after = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    assert after == before


def test_ctrl_z_stops_the_worker_with_the_parent_and_flags_the_run(tmp_path):
    """Ctrl-Z stopped the parent while the worker, in its own session, kept training."""
    run_dir = tmp_path / "run"
    parent = subprocess.Popen(
        [sys.executable, "run.py", "backend=torch", "model=mlp", "cpus=1", "epochs=3",
         "max_steps=60", "measure.peak_probe=false", f"hydra.run.dir={run_dir}"],
        cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        worker = _child_running(psutil.Process(parent.pid), "twinbench.worker")
        time.sleep(3)  # into its imports or its steps
        parent.send_signal(signal.SIGTSTP)
        deadline = time.monotonic() + 10
        while worker.status() != psutil.STATUS_STOPPED and time.monotonic() < deadline:
            time.sleep(0.1)
        assert worker.status() == psutil.STATUS_STOPPED, "the worker kept running"
        used = sum(worker.cpu_times()[:2])
        time.sleep(2)
        assert sum(worker.cpu_times()[:2]) == used, "a stopped worker used CPU"
        parent.send_signal(signal.SIGCONT)
        _, err = parent.communicate(timeout=300)
        assert parent.returncode == 0, err[-2000:]
        record = json.loads((run_dir / "result.json").read_text())
        assert record["status"] == "ok" and len(record["suspended_s"]) == 1
        assert record["suspended_s"][0] >= 2 and "was suspended for" in err
    finally:
        if parent.poll() is None:
            parent.send_signal(signal.SIGCONT)
            parent.kill()


def _child_running(parent: psutil.Process, marker: str, timeout_s: float = 120) -> psutil.Process:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        for child in parent.children(recursive=True):
            try:
                if any(marker in part for part in child.cmdline()):
                    return child
            except psutil.NoSuchProcess:
                continue
        time.sleep(0.2)
    raise AssertionError(f"no {marker} process started")
