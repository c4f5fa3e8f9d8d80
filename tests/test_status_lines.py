"""Waits of seconds say what they are doing, through logging (so run.log keeps them inside a
Hydra run), and --quiet turns them off for scripts."""

from __future__ import annotations

import logging
import subprocess
import sys

import pytest

from analysis.__main__ import main as analysis_main
from twinbench.parity import cli as parity_cli
from twinbench.parity import stages
from twinbench.ui import progress

from .test_analysis_fakes import sweep


@pytest.fixture
def results(tmp_path):
    sweep(tmp_path / "sweep", {("torch", 1): [[1.0, 1.0]], ("tensorflow", 1): [[1.2, 1.2]]})
    return tmp_path / "sweep"


def status_lines(caplog, prefix: str) -> list[str]:
    return [m for m in caplog.messages if m.startswith(prefix)]


def test_parity_says_which_half_it_is_running_and_is_silent_when_quiet(caplog, monkeypatch):
    caplog.set_level(logging.INFO)

    real_popen = subprocess.Popen

    def failing_stage(cmd, **kwargs):  # the stage's process, told to fail at once
        return real_popen([sys.executable, "-c", "raise SystemExit('boom')"], **kwargs)

    monkeypatch.setattr(stages.subprocess, "Popen", failing_stage)
    with pytest.raises(RuntimeError, match="tensorflow parity stage for mlp failed"):
        stages.run_stages("mlp", {})
    assert status_lines(caplog, "parity:") == [
        "parity: mlp: tensorflow stage (its own process: import, build, train a few steps)..."
    ]
    caplog.clear()
    try:
        with pytest.raises(RuntimeError):
            parity_cli.main(["mlp", "--quiet"])
    finally:
        progress.cli_logging(False, ("twinbench.parity",))
    assert status_lines(caplog, "parity:") == []


def test_the_analysis_says_each_long_step_and_quiet_keeps_it_silent(results, tmp_path, caplog):
    caplog.set_level(logging.INFO)
    assert analysis_main(["report", str(results), "--out", str(tmp_path / "out")]) == 0
    assert status_lines(caplog, "analysis:") == [
        f"analysis: reading results under {results} ...",
        "analysis: 2 runs read; comparing them ...",
        f"analysis: writing {tmp_path / 'out' / 'report.html'} and its figures ...",
    ]
    caplog.clear()
    assert analysis_main(["collect", str(results), "--quiet", "--out", str(tmp_path / "t")]) == 0
    assert (tmp_path / "t.csv").exists()
    assert caplog.messages == []
    assert analysis_main(["collect", str(results), "--out", str(tmp_path / "t")]) == 0
    assert status_lines(caplog, "collect:") == [
        f"collect: reading every result under {results} ..."
    ]
