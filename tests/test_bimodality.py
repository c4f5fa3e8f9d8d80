"""The bimodality investigation: variants interleaved process by process, and a gap ratio that
tells two speeds of steady processes from one noisy population."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from benchmarks import bimodality
from benchmarks.bimodality import Process
from twinbench.paths import REPO_ROOT


def procs(*epochs_per_process: list[float]) -> list[Process]:
    return [Process("v", [9.9, *e], 1.0, 1.0) for e in epochs_per_process]


def test_every_round_runs_each_variant_once_and_the_first_rotates():
    assert bimodality.rounds(["a", "b", "c"], 4) == [
        ["a", "b", "c"], ["b", "c", "a"], ["c", "a", "b"], ["a", "b", "c"],
    ]  # fmt: skip


def test_steady_processes_at_two_speeds_give_a_high_gap_ratio_one_noisy_population_a_low_one():
    two_speeds = procs([1.75, 1.78], [1.76, 1.80], [2.10, 2.12], [2.09, 2.13])
    s = bimodality.gap_ratio(two_speeds)
    assert s["sorted_medians_s"] == pytest.approx([1.765, 1.78, 2.11, 2.11])
    assert s["widest_gap_s"] == pytest.approx(2.11 - 1.78)
    assert s["below_gap"] == 2 and s["within_process_range_s"] == pytest.approx(0.035)
    assert s["gap_ratio"] > 5
    noisy = procs([1.7, 2.1], [1.8, 2.2], [1.75, 2.15], [1.85, 2.05])
    assert bimodality.gap_ratio(noisy)["gap_ratio"] < 1
    # The first epoch (9.9 s above) never enters: it pays for tracing and cold caches.
    assert max(bimodality.gap_ratio(noisy)["sorted_medians_s"]) < 2.1


def test_a_variant_whose_library_is_absent_is_skipped_and_says_why(monkeypatch):
    monkeypatch.setitem(bimodality.VARIANTS, "ghost", {"preload": ["/nonexistent/libx.so"]})
    assert "none of /nonexistent/libx.so exists" in bimodality.runnable("ghost")
    assert bimodality.runnable("baseline") is None


def test_thp_off_turns_huge_pages_off_for_the_command_it_starts():
    status = subprocess.run(
        [sys.executable, "-m", "benchmarks.thp_off", "cat", "/proc/self/status"],
        cwd=REPO_ROOT, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    if "THP_enabled" not in status:
        pytest.skip("this kernel does not report THP_enabled")
    assert "THP_enabled:\t0" in status


def test_two_processes_of_one_variant_run_report_and_write_json(tmp_path, capsys):
    """Tiny real run: the pytorch/examples loop, 3 steps, under thp_off (the wrapper on the
    real path); the Keras port is the default and is exercised by test_benchmarks."""
    out = tmp_path / "bimodality.json"
    args = ["--processes", "2", "--variants", "thp_off", "--backend", "torch", "--cpus", "1"]
    code = bimodality.main([*args, "--max-steps", "3", "--epochs", "3", "--out", str(out)])
    assert code == 0
    printed = capsys.readouterr().out
    assert "[1/2] round 1 thp_off" in printed and "[2/2] round 2 thp_off" in printed
    assert "gap ratio" in printed
    result = json.loads(out.read_text())
    v = result["variants"]["thp_off"]
    assert len(v["processes"]) == 2 and all(len(p["epochs"]) == 3 for p in v["processes"])
    assert v["sorted_medians_s"] == sorted(v["sorted_medians_s"])
    assert result["system_thp"] is None or "[" in result["system_thp"]


def test_unknown_variants_and_too_few_epochs_are_refused_in_one_line(capsys):
    with pytest.raises(SystemExit) as e:
        bimodality.main(["--variants", "nope"])
    assert e.value.code == 2 and "unknown variant(s) nope" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        bimodality.main(["--epochs", "2"])
