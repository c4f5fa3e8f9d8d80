"""`python -m analysis collect`: one Parquet + CSV table from several directories (machines),
duplicates and incompatible records reported, never silently merged."""

from __future__ import annotations

import csv
import shutil

import pandas as pd

from analysis.__main__ import main

from . import test_analysis_fakes as fakes

A, B = "Machine A x8", "Machine B x64"


def two_machines(tmp_path):
    a, b = tmp_path / "from_a", tmp_path / "from_b"
    fakes.write(a, "torch1", fakes.record("torch", 1, [1.0, 1.0], machine=A))
    fakes.write(a, "tf1", fakes.record("tensorflow", 1, [2.0, 2.0], machine=A))
    fakes.write(b, "torch1", fakes.record("torch", 1, [0.1, 0.2], machine=B))
    fakes.write(b, "dead", fakes.failed("tensorflow", 1, "ran out of memory"))
    return a, b


def test_two_directories_merge_into_one_table_keyed_by_machine(tmp_path, capsys):
    a, b = two_machines(tmp_path)
    out = tmp_path / "table"
    assert main(["collect", str(a), str(b), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert "collected 4 runs from 2 machine(s)" in printed
    assert "failed: mlp tensorflow cpu1 @ unknown machine: ran out of memory" in printed
    parquet = pd.read_parquet(out.with_suffix(".parquet"))
    with open(out.with_suffix(".csv"), newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(parquet) == len(rows) == 4
    assert list(parquet.columns[:2]) == ["machine", "source"]
    # Sorted by machine. The failed record carries no environment, and two machines are known:
    # it stays "unknown machine" rather than being guessed.
    assert list(parquet["machine"]) == [A, A, B, "unknown machine"]
    assert set(parquet["status"]) == {"ok", "failed"}
    assert sorted(parquet.loc[parquet["machine"] == A, "train_time_s"]) == [2.0, 4.0]
    # Every digit survives the CSV: 0.1 + 0.2 is 0.30000000000000004 in binary floating point.
    assert [r["train_time_s"] for r in rows if r["machine"] == B] == ["0.30000000000000004"]
    assert parquet.loc[parquet["machine"] == B, "train_time_s"].item() == 0.1 + 0.2


def test_a_copied_record_is_reported_as_a_duplicate_and_counted_once(tmp_path, capsys):
    a, b = two_machines(tmp_path)
    copy = b / "copied" / "result.json"
    copy.parent.mkdir()
    shutil.copy(a / "torch1" / "result.json", copy)
    out = tmp_path / "table.parquet"  # a suffix names the same pair
    assert main(["collect", str(a), str(b), "--out", str(out)]) == 0
    printed = capsys.readouterr().out
    assert f"duplicate: {copy} is the same run as {a / 'torch1' / 'result.json'}" in printed
    table = pd.read_parquet(out)
    assert len(table) == 4
    kept = table[table["path"] == str(a / "torch1" / "result.json")].iloc[0]
    assert kept["duplicates"] == str(copy)
    assert (tmp_path / "table.csv").exists()


def test_same_identity_with_different_content_is_reported_incompatible(tmp_path, capsys):
    a, b = two_machines(tmp_path)
    original = fakes.record("torch", 1, [1.0, 1.0], machine=A)
    changed = fakes.record("torch", 1, [1.0, 1.0], machine=A)
    changed["config"]["seed"] = 7  # same run_key, repeat, machine and start, other config
    fakes.write(b, "changed", changed)
    out = tmp_path / "table"
    assert main(["collect", str(a), str(b), "--out", str(out)]) == 1
    printed = capsys.readouterr().out
    assert "incompatible:" in printed and "different configuration" in printed
    table = pd.read_parquet(out.with_suffix(".parquet"))
    flagged = table[table["conflict"] == "incompatible"]
    assert len(flagged) == 2  # both versions kept, both flagged
    assert original["run_key"] == changed["run_key"]


def test_an_out_folder_gets_the_table_inside_and_a_bad_out_is_one_line(tmp_path, capsys):
    """--out naming an existing folder wrote <folder>.parquet beside it; --out below a file
    raised FileExistsError from pathlib, a traceback, after reading every record."""
    a, _ = two_machines(tmp_path)
    folder = tmp_path / "tables"
    folder.mkdir()
    assert main(["collect", str(a), "--out", str(folder)]) == 0
    assert sorted(p.name for p in folder.iterdir()) == ["table.csv", "table.parquet"]
    assert not (tmp_path / "tables.parquet").exists()
    capsys.readouterr()
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    assert main(["collect", str(a), "--out", str(blocker / "t")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"analysis: error: cannot write the table into {blocker}: ")
    assert err[-1].endswith("choose another --out") and not any("Traceback" in e for e in err)
