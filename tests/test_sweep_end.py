"""The end of a sweep: a sweep whose report cannot be written fails (exit status 1), though every
run finished; the rest of its summary is still printed."""

from __future__ import annotations

import pytest
from omegaconf import OmegaConf

from analysis.render import report
from twinbench.cli.sweep_end import SweepSummary

from . import test_analysis_fakes as fakes


def end_of_sweep(sweep_dir, **keys) -> None:
    config = {"hydra": {"sweep": {"dir": str(sweep_dir)}}, **keys}
    SweepSummary().on_multirun_end(OmegaConf.create(config))


def test_a_sweep_whose_report_cannot_be_written_exits_1_after_its_summary(
    tmp_path, capsys, monkeypatch
):
    fakes.sweep(tmp_path, {("torch", 1): [[1.0]], ("tensorflow", 1): [[2.0]]})

    def disk_full(*args, **kwargs):
        raise OSError("No space left on device")

    monkeypatch.setattr(report, "write", disk_full)
    with pytest.raises(SystemExit) as exit_:
        end_of_sweep(tmp_path)
    assert exit_.value.code == 1
    printed = capsys.readouterr().out
    assert "torch cpu1" in printed  # the comparison table came first
    assert "report not written: OSError: No space left on device" in printed


def test_a_sweep_whose_report_is_written_ends_normally(tmp_path, capsys):
    fakes.sweep(tmp_path, {("torch", 1): [[1.0]], ("tensorflow", 1): [[2.0]]})
    end_of_sweep(tmp_path)  # no SystemExit: every run finished and the report is there
    assert f"report: {tmp_path / 'report.html'}" in capsys.readouterr().out
    assert (tmp_path / "report.html").is_file()


def test_report_false_ends_with_the_table_and_says_how_to_make_the_report(tmp_path, capsys):
    fakes.sweep(tmp_path, {("torch", 1): [[1.0]], ("tensorflow", 1): [[2.0]]})
    end_of_sweep(tmp_path, report=False)  # no SystemExit: leaving it out was asked for
    printed = capsys.readouterr().out
    assert "torch cpu1" in printed  # the comparison table is still there
    assert f"report: not written (report=false); python -m analysis {tmp_path}" in printed
    assert not (tmp_path / "report.html").exists()


def test_a_sweep_whose_every_run_failed_says_so_where_the_report_would_be(tmp_path, capsys):
    """It printed `report not written: KeyError: 'source'` (found 2026-12-06 with a deciding
    sweep whose jobs all had an invalid config): the report's line now says what
    `python -m analysis` says of the same folder, and the sweep still fails."""
    from twinbench.launch import failed
    from twinbench.result import results

    for backend in ("torch", "tensorflow"):
        config = {"backend": {"name": backend}, "model": {"name": "mlp"}, "cpus": 1}
        record = failed.failed_record(config, "worker killed by signal 9", error_kind="crash")
        results.write_atomic(tmp_path / f"backend={backend}" / "result.json", record)
    with pytest.raises(SystemExit) as exit_:
        end_of_sweep(tmp_path)
    assert exit_.value.code == 1
    (line,) = [x for x in capsys.readouterr().out.splitlines() if x.startswith("report")]
    assert line.startswith(f"report not written: no finished runs under {tmp_path}: all 2 failed")
    assert "worker killed by signal 9" in line
    assert not (tmp_path / "report.html").exists()
