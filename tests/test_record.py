"""The result record has one owner (twinbench/result/record.py): every version in its history reads
back, nothing a writer put in is lost, and the worker, the failed-run path and the analysis go
through it. Typed blocks: tests/test_record_blocks.py."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from analysis.load import records
from twinbench.launch import failed
from twinbench.paths import REPO_ROOT
from twinbench.result.record import (
    SCHEMA_HISTORY,
    SCHEMA_VERSION,
    ResultRecord,
    UnknownSchemaVersion,
)

from . import test_analysis_fakes as fakes


def test_every_version_up_to_the_current_one_has_its_change_written_down():
    assert sorted(SCHEMA_HISTORY) == list(range(1, SCHEMA_VERSION + 1))
    assert all(len(change) > 40 for change in SCHEMA_HISTORY.values())


def test_a_version_1_record_reads_back_unchanged():
    old = fakes.record("torch", 2, [1.0, 0.5])
    assert old["schema_version"] == 1
    read = ResultRecord.from_json(json.loads(json.dumps(old)))
    assert read.schema_version == 1 and read.backend == "torch" and read.extra == {}
    assert read.to_json() == old


def test_keys_the_class_does_not_declare_are_kept_not_dropped():
    rec = fakes.record("tensorflow", 1, [1.0]) | {"a_later_block": {"x": 1}}
    read = ResultRecord.from_json(rec)
    assert read.extra == {"a_later_block": {"x": 1}}
    assert read.to_json() == rec


@pytest.mark.parametrize("version", [None, SCHEMA_VERSION + 1, True, "1"])
def test_an_unknown_version_is_refused_with_the_versions_it_reads(version):
    rec = fakes.record("torch", 1, [1.0]) | {"schema_version": version}
    with pytest.raises(UnknownSchemaVersion, match=f"unknown schema_version {version!r}"):
        ResultRecord.from_json(rec)


def test_absent_is_not_written_and_none_is_written_as_null():
    out = ResultRecord(status="ok", backend="torch", profile=None).to_json()
    assert out == {
        "schema_version": SCHEMA_VERSION,
        "status": "ok",
        "backend": "torch",
        "profile": None,
    }


def test_a_failed_record_is_written_through_the_owner_with_the_backend_identity():
    rec = failed.failed_record(
        {"backend": {"name": "torch"}, "model": {"name": "mlp"}},
        "boom",
        error_kind="crash",
        stderr_tail=["x"],
        note="kept",
    )
    assert rec["schema_version"] == SCHEMA_VERSION and rec["status"] == "failed"
    assert (rec["backend_api"], rec["backend_runtime"]) == ("torch", "torch")
    assert rec["error_kind"] == "crash" and rec["note"] == "kept"
    assert ResultRecord.from_json(rec).to_json() == rec


def test_the_analysis_reads_old_and_new_records_and_takes_the_identity_from_the_record(
    tmp_path,
):
    old = fakes.write(tmp_path, "old", fakes.record("torch", 1, [1.0]))
    new = fakes.record("keras_jax", 1, [1.0]) | {
        "schema_version": SCHEMA_VERSION,
        "backend_api": "keras",
        "backend_runtime": "jax",
        "backend_label": "Keras on JAX",
    }
    new_path = fakes.write(tmp_path, "new", new)
    rows = {r["backend"]: r for r in map(records.to_row, records.load_records([tmp_path]))}
    assert (rows["keras_jax"]["api"], rows["keras_jax"]["runtime"]) == ("keras", "jax")
    assert rows["keras_jax"]["backend_label"] == "Keras on JAX"
    # version 1: no identity in the record; the registry supplies it (analysis/load/backends.py)
    assert (rows["torch"]["api"], rows["torch"]["runtime"]) == ("torch", "torch")
    assert {rows["torch"]["path"], rows["keras_jax"]["path"]} == {str(old), str(new_path)}


def test_the_worker_builds_its_record_with_the_owner_not_a_dict_literal():
    assembler = REPO_ROOT / "twinbench" / "worker" / "assemble.py"
    tree = ast.parse(assembler.read_text())
    dict_keys = {
        k.value
        for node in ast.walk(tree)
        if isinstance(node, ast.Dict)
        for k in node.keys
        if isinstance(k, ast.Constant)
    }
    # the record's own top-level keys never appear as a dict literal's keys in the worker
    assert not dict_keys & {"schema_version", "status", "epoch_times_s", "threads_actual"}
    assert "ResultRecord.ok(" in assembler.read_text()
    assert Path(records.__file__).read_text().count("ResultRecord.from_json") == 1
