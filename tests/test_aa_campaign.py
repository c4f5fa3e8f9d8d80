"""`twinbench aa` (twinbench/cli/aa_campaign.py): the false-decision rate of a deciding design,
measured on real A/A sequences. Here on fabricated units: what a sequence counts, how a campaign
resumes, and what stops it before or while it measures."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest

from twinbench.cli import aa_campaign
from twinbench.launch.resident import Unit

from .test_resident import DESIGN


def test_a_campaign_counts_faster_verdicts_as_false_and_bounds_their_rate() -> None:
    design = dataclasses.replace(DESIGN, max_seconds=100.0)
    ticks = iter(range(10**6))
    aside = [
        aa_campaign.one_sequence(lambda i, r=r: Unit({"wall": r, "cpu": r}, 4), design,
                                 now=lambda: float(next(ticks)))[0]
        for r in (0.7, 1.4)
    ]  # fmt: skip
    level = [
        aa_campaign.one_sequence(
            lambda i: Unit({"wall": 1 + 0.01 * (-1) ** i, "cpu": 1.0}, 4), design,
            now=lambda: float(next(ticks)),
        )[0]
        for _ in range(3)
    ]  # fmt: skip
    body = aa_campaign.summary([s.as_dict() for s in aside + level], design, {"backend": "torch"})
    assert body["outcomes"] == {"a_faster": 1, "b_faster": 1, "equivalent": 3}
    assert body["false_decisions"] == 2 and body["false_decision_rate"] == 0.4
    assert 0.4 < body["false_decision_upper_95"] < 1
    assert body["described"]["name"] == "resident worker pairs in turns"


def test_a_resumed_campaign_keeps_its_sequences_and_refuses_another_campaigns_file(
    tmp_path: Path,
) -> None:
    about = {"backend": "torch", "model": "mlp", "cpus": 1}
    ticks = iter(range(10**6))
    one = aa_campaign.one_sequence(
        lambda i: Unit({"wall": 1.0, "cpu": 1.0}, 4), DESIGN, now=lambda: float(next(ticks))
    )[0]
    out = tmp_path / "aa.json"
    out.write_text(json.dumps(aa_campaign.summary([one.as_dict()] * 3, DESIGN, about)))
    assert len(aa_campaign.resumed(out, DESIGN, about)) == 3
    assert aa_campaign.resumed(tmp_path / "none.json", DESIGN, about) == []
    # Mutations: another core count, another design: their sequences must not mix in.
    with pytest.raises(SystemExit) as exit_:
        aa_campaign.resumed(out, DESIGN, about | {"cpus": 2})
    assert exit_.value.code == 2
    with pytest.raises(SystemExit):
        aa_campaign.resumed(out, dataclasses.replace(DESIGN, resident_blocks=8), about)


def test_a_campaign_whose_worker_pairs_all_fail_stops_in_one_line_and_counts_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """A sequence with no complete worker pair is no A/A sequence: on 2026-12-03 a campaign's
    code changed under it, its workers failed, and 24 empty sequences were counted as 24
    sequences without a false decision."""
    import argparse

    from twinbench.cli import calibrate

    parser = argparse.ArgumentParser()
    aa_campaign.add_arguments(parser)
    out = tmp_path / "aa.json"
    args = parser.parse_args(["--out", str(out), "--sequences", "3", "--budget-s", "5"])
    monkeypatch.setattr(aa_campaign, "check_run_options", lambda _: None)
    monkeypatch.setattr(calibrate, "resident_unit", lambda *_: None)
    with pytest.raises(SystemExit) as exit_:
        aa_campaign.run(args)
    assert exit_.value.code == 1
    assert "sequence 1: no worker pair completed" in capsys.readouterr().err
    assert not out.exists()  # nothing counted


def test_an_a_a_units_seconds_start_once_the_machine_is_its_own(tmp_path: Path) -> None:
    """A campaign beside another measurement waited for the lock inside its units' seconds, and
    a sequence cut short by its budget counts as one more that decided nothing falsely."""
    import multiprocessing
    import threading
    import time

    from twinbench.launch import machine_lock

    from .test_machine_lock import _start_holder

    key = str(tmp_path / "lock")
    holder, release = _start_holder(multiprocessing.get_context("spawn"), key)
    threading.Timer(1.5, release.set).start()

    def unit(_i: int) -> Unit:
        with machine_lock.measurement_lock(key):  # as each worker pair takes it
            return Unit({"wall": 1.0, "cpu": 1.0}, 4)

    design = dataclasses.replace(DESIGN, max_pairs=2, max_seconds=None)
    started = time.monotonic()
    series, _ = aa_campaign.one_sequence(unit, design, lock=key)
    assert time.monotonic() - started >= 1.5 and series.seconds < 0.75
    holder.join(30)


def test_a_campaign_whose_summary_cannot_be_written_is_refused_before_its_first_sequence(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """The summary is written after each sequence: an --out under a file, or a folder, failed
    only once the first sequence had been measured (a traceback, minutes in)."""
    import argparse

    from twinbench.cli import calibrate

    parser = argparse.ArgumentParser()
    aa_campaign.add_arguments(parser)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    measured: list[int] = []
    monkeypatch.setattr(aa_campaign, "check_run_options", lambda _: None)
    monkeypatch.setattr(calibrate, "resident_unit", lambda *a: measured.append(1))
    for out, said in ((blocker / "aa.json", "is a file, not a directory"),
                      (tmp_path, "is a directory; name the JSON file to write")):  # fmt: skip
        with pytest.raises(SystemExit) as exit_:
            aa_campaign.run(parser.parse_args(["--out", str(out), "--sequences", "1"]))
        assert exit_.value.code == 2
        (line,) = capsys.readouterr().err.strip().splitlines()
        assert said in line, line
    assert measured == []
    deeper = tmp_path / "new" / "folder" / "aa.json"  # a folder yet to be made is fine
    with pytest.raises(SystemExit):  # (stopped by the failing units, after the check)
        aa_campaign.run(parser.parse_args(["--out", str(deeper), "--sequences", "1"]))
    assert measured and deeper.parent.is_dir()


def test_the_campaign_is_a_command_that_refuses_a_pairing_it_cannot_run(capsys) -> None:
    from twinbench.cli import commands

    with pytest.raises(SystemExit) as exit_:
        commands.COMMANDS["aa"].main(["--pairing", "sequential", "--out", "x.json"], "twinbench aa")
    assert exit_.value.code == 2
    assert "--pairing sequential" in capsys.readouterr().err


def test_an_a_a_pair_runs_both_halves_under_the_allocator_it_is_given_and_keeps_it_apart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture
) -> None:
    """`--allocator retain` asks whether the resident design stays valid when glibc's page-fault
    state is out of the units (a torch unit's spread fell from 0.104 to 0.018 under it): only
    if both halves of every pair run under it, and a campaign under it never resumes into one
    under the default."""
    import argparse

    from twinbench.cli import calibrate

    parser = argparse.ArgumentParser()
    aa_campaign.add_arguments(parser)
    out = tmp_path / "aa.json"
    for mode in ("retain", "default"):
        args = parser.parse_args(["--out", str(out), "--allocator", mode])
        halves = [cfg for cfg, _ in calibrate._jobs(args, tmp_path, 0)]
        assert [cfg["backend"]["allocator"] for cfg in halves] == [mode, mode]
    about = {"backend": args.backend, "model": "mlp", "cpus": None, "allocator": "retain"}
    design = dataclasses.replace(DESIGN, max_seconds=1.0, total_seconds=None)  # as run() sets it
    one = aa_campaign.one_sequence(lambda i: Unit({"wall": 1.0, "cpu": 1.0}, 4), design)[0]
    out.write_text(json.dumps(aa_campaign.summary([one.as_dict()], design, about)))
    monkeypatch.setattr(aa_campaign, "load_design", lambda **_: DESIGN)
    monkeypatch.setattr(calibrate, "resident_unit", lambda *_: pytest.fail("measured"))
    with pytest.raises(SystemExit) as exit_:
        aa_campaign.run(parser.parse_args(["--out", str(out), "--resume", "--budget-s", "1"]))
    assert exit_.value.code == 2
    assert "(differs in allocator)" in capsys.readouterr().err
