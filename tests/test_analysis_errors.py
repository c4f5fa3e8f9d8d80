"""Bad input gives one clear line on stderr and a non-zero exit, never a traceback."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from analysis.__main__ import main
from twinbench.paths import REPO_ROOT
from twinbench.result.record import SCHEMA_VERSION

from . import test_analysis_fakes as fakes


def one_line_error(capsys, argv: list[str]) -> str:
    assert main(argv) == 2
    captured = capsys.readouterr()
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1, captured.err
    assert lines[0].startswith("analysis: error: ")
    assert "Traceback" not in captured.err + captured.out
    return lines[0]


def test_an_empty_directory(tmp_path, capsys):
    line = one_line_error(capsys, [str(tmp_path), "--out", str(tmp_path / "r")])
    assert f"{tmp_path}: no result.json found, and not a folder of 2017 logs" in line


def test_a_foreign_directory(tmp_path, capsys):
    (tmp_path / "notes.txt").write_text("hello")
    (tmp_path / "gpu").mkdir()
    (tmp_path / "gpu" / "something.csv").write_text("a,b\n1,2\n")
    line = one_line_error(capsys, [str(tmp_path)])
    assert "no result.json found" in line
    assert not (tmp_path / "report.html").exists()


def test_a_missing_path(tmp_path, capsys):
    line = one_line_error(capsys, [str(tmp_path / "nowhere")])
    assert "no such file or directory" in line


def test_an_unknown_schema_version_names_the_file(tmp_path, capsys):
    fakes.write(tmp_path, "ok", fakes.record("torch", 1, [1.0]))
    newer = fakes.record("tensorflow", 1, [1.0])
    newer["schema_version"] = SCHEMA_VERSION + 1
    path = fakes.write(tmp_path, "newer", newer)
    line = one_line_error(capsys, [str(tmp_path)])
    assert f"{path}: unknown schema_version {SCHEMA_VERSION + 1}" in line
    # collect refuses the same way
    line = one_line_error(capsys, ["collect", str(tmp_path), "--out", str(tmp_path / "t")])
    assert f"{path}: unknown schema_version {SCHEMA_VERSION + 1}" in line


@pytest.mark.parametrize("foreign", [{"name": "demo", "version": 3}, {"schema_version": 7}])
def test_an_unrelated_json_named_result_json_is_said_to_be_no_record(foreign, tmp_path, capsys):
    """It said 'update twinbench to read newer records' (issue 45): advice the wrong way."""
    path = tmp_path / "result.json"
    path.write_text(json.dumps(foreign))
    line = one_line_error(capsys, [str(tmp_path)])
    assert f"{path}: not a twinbench record" in line and "update twinbench" not in line


def test_a_record_without_schema_version_is_unknown_too(tmp_path, capsys):
    rec = fakes.record("torch", 1, [1.0])
    del rec["schema_version"]
    path = fakes.write(tmp_path, "old", rec)
    assert f"{path}: unknown schema_version None" in one_line_error(capsys, [str(tmp_path)])


@pytest.mark.parametrize("text", ["{not json", "[1, 2, 3]", ""])
def test_unparseable_or_non_record_json_names_the_file(tmp_path, capsys, text):
    path = tmp_path / "run" / "result.json"
    path.parent.mkdir()
    path.write_text(text)
    line = one_line_error(capsys, [str(tmp_path)])
    assert str(path) in line
    assert "not valid JSON" in line or "not a result record" in line


def test_results_with_no_common_baseline(tmp_path, capsys):
    fakes.write(tmp_path, "a", fakes.record("torch", 1, [1.0], model="mlp"))
    fakes.write(tmp_path, "b", fakes.record("tensorflow", 2, [1.0], model="cnn"))
    line = one_line_error(capsys, [str(tmp_path), "--out", str(tmp_path / "r")])
    assert "no common baseline" in line and "--baseline" in line


def test_an_unknown_pricing_table(tmp_path, capsys):
    fakes.write(tmp_path, "a", fakes.record("torch", 1, [1.0]))
    line = one_line_error(capsys, [str(tmp_path), "--pricing", "nosuch", "--out", str(tmp_path)])
    assert "no pricing table nosuch (known: gce_2017_preemptible" in line


def test_a_pricing_file_that_is_not_yaml_is_one_line(tmp_path, capsys):
    """The YAML parser's message spans six lines, with a caret under the column."""
    fakes.write(tmp_path, "a", fakes.record("torch", 1, [1.0]))
    bad = tmp_path / "prices.yaml"
    bad.write_text("{bad\n")
    line = one_line_error(capsys, [str(tmp_path), "--pricing", str(bad), "--out", str(tmp_path)])
    assert f"{bad}: not valid YAML (while parsing a flow mapping" in line


@pytest.mark.parametrize(
    "option, message",
    [
        (["--target-accuracy", "97"], "a fraction in (0, 1] (e.g. 0.97), got 97"),
        (["--target-accuracy", "0"], "--target-accuracy is a fraction in (0, 1]"),
        (["--parity-dir", "no-such-folder"], "--parity-dir no-such-folder: no such folder"),
    ],
)  # fmt: skip
def test_an_option_that_would_match_nothing_is_refused(option, message, tmp_path, capsys):
    """Both were taken silently: a percent as the target accuracy matched no run, and a
    misspelt certificate folder read as an empty one ("no certificate" for every model)."""
    fakes.write(tmp_path, "a", fakes.record("torch", 1, [1.0]))
    line = one_line_error(capsys, [str(tmp_path), *option, "--out", str(tmp_path / "r")])
    assert message in line


def test_a_read_only_report_folder_suggests_out(tmp_path, capsys):
    fakes.write(tmp_path, "a", fakes.record("torch", 1, [1.0]))
    blocker = tmp_path / "file"
    blocker.write_text("")
    line = one_line_error(capsys, [str(tmp_path), "--out", str(blocker / "sub")])
    assert "cannot write the report" in line and "--out" in line


def test_the_real_entry_point_prints_one_line_for_bad_json(tmp_path):
    """Through `python -m analysis`, as users run it."""
    path = tmp_path / "r" / "result.json"
    path.parent.mkdir()
    path.write_text(json.dumps({"schema_version": 1})[:-3])
    proc = subprocess.run(
        [sys.executable, "-m", "analysis", str(tmp_path)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert proc.returncode == 2
    assert proc.stderr.startswith(f"analysis: error: {path}: not valid JSON")
    assert len(proc.stderr.strip().splitlines()) == 1 and "Traceback" not in proc.stderr


def test_a_folder_of_failed_runs_is_one_line_and_writes_no_report(tmp_path, capsys):
    """It was a pandas KeyError and a half-written report_files/ (issue 28)."""
    from twinbench.launch import failed
    from twinbench.result import results

    for i, backend in enumerate(("torch", "tensorflow")):
        config = {"backend": {"name": backend}, "model": {"name": "mlp"}, "cpus": 1}
        record = failed.failed_record(config, "worker killed by signal 9", error_kind="crash")
        results.write_atomic(tmp_path / "runs" / f"r{i}" / "result.json", record)
    out = tmp_path / "report"
    line = one_line_error(capsys, [str(tmp_path / "runs"), "--out", str(out)])
    assert "no finished runs" in line and "all 2 failed" in line
    assert "worker killed by signal 9" in line
    assert not out.exists()


def test_records_with_nan_epoch_times_are_named_as_such(tmp_path, capsys):
    """The message used to advise `--metric train_time`, the option already in use, and never
    said the values were NaN (issue 28)."""
    for path in fakes.sweep(tmp_path, {("torch", 1): [[1.0, 1.1]], ("tensorflow", 1): [[1.2]]}):
        record = json.loads(path.read_text())
        record["epoch_times_s"] = [float("nan")] * len(record["epoch_times_s"])
        record.pop("train_times_s", None)
        path.write_text(json.dumps(record))  # Python's json writes NaN, as a foreign tool may
    line = one_line_error(capsys, [str(tmp_path), "--out", str(tmp_path / "r")])
    assert "NaN" in line and "use --metric train_time" not in line
