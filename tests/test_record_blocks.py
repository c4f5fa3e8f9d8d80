"""The record's blocks are typed (twinbench/result/blocks.py): every version reads into them and
writes back byte for byte, a key a block does not declare is kept, a malformed block stays as it
was, and measured and failed records are made by one constructor."""

from __future__ import annotations

import json
from dataclasses import fields

import pytest

from twinbench.launch import failed
from twinbench.paths import REPO_ROOT
from twinbench.result import blocks
from twinbench.result.block import ABSENT, BLOCK, DOC, Block
from twinbench.result.blocks import STEADY_STEP_S, Environment, Summary, Threads, Timing
from twinbench.result.record import STABLE_KEYS, ResultRecord

# A worker's record of `python run.py backend=torch model=mlp cpus=1 epochs=1 max_steps=3
# profile=true measure.speed_of_light=true`, host name and cache paths made neutral.
SCHEMA_2 = REPO_ROOT / "tests" / "records" / "schema2-torch-mlp.json"

# The first writer's record (version 1): the stable keys, the epoch times, an early timing
# block without drift, and a block key no version declares.
SCHEMA_1 = {
    "schema_version": 1,
    "status": "ok",
    "backend": "tensorflow",
    "model": "mlp",
    "params": 669706,
    "cpus": 2,
    "threads_requested": {"intra_op": 2, "inter_op": 2},
    "threads_actual": {"intra_op": 2, "inter_op": 2},
    "device": "cpu",
    "epoch_times_s": [3.5, 2.25],
    "timing": {"steady_step_s": {"median": 0.01, "n": 90}, "steady_steps": 90, "note": "old"},
    "environment": {"hostname": "h", "cpu_model": "Test CPU", "logical_cores": 8},
}


def schema_2() -> dict:
    return json.loads(SCHEMA_2.read_text())


@pytest.mark.parametrize("version", [1, 2])
def test_a_record_of_every_version_writes_back_exactly_as_it_was_read(version):
    data = SCHEMA_1 if version == 1 else schema_2()
    assert data["schema_version"] == version
    out = ResultRecord.from_json(json.loads(json.dumps(data))).to_json()
    assert out == data
    assert json.dumps(out) == json.dumps(data)  # key order too, at every level


def test_blocks_read_into_their_types():
    rec = ResultRecord.from_json(schema_2())
    assert isinstance(rec.timing, Timing) and isinstance(rec.timing.steady_step_s, Summary)
    assert rec.timing.steady_step_s.median > 0 and rec.timing.steady_steps >= 1
    assert isinstance(rec.threads_actual, Threads) and rec.threads_actual.intra_op == 1
    assert isinstance(rec.environment, Environment) and rec.environment.hostname == "testhost"
    assert rec.flops.per_step > 0 and rec.startup.first_step_s > 0
    assert rec.speed_of_light.sol_step_s > 0 and rec.machine_peak.cores == 1
    assert rec.resources.peak_rss_mib > 0 and rec.history.loss and rec.budget.parts_s


def test_a_version_1_record_lacks_what_it_never_wrote():
    rec = ResultRecord.from_json(SCHEMA_1)
    assert rec.backend_api is ABSENT and rec.timing.drift is ABSENT
    assert rec.timing.extra == {"note": "old"}  # a block key no version declares, kept


def test_a_key_a_block_does_not_declare_is_kept_and_written_back_in_place():
    data = schema_2()
    data["timing"] = {"a_later_key": 1, **data["timing"]}
    rec = ResultRecord.from_json(data)
    assert rec.timing.extra == {"a_later_key": 1}
    assert json.dumps(rec.to_json()) == json.dumps(data)


@pytest.mark.parametrize("junk", [None, "text", [1, 2], 3])
def test_a_malformed_block_is_kept_as_it_is_not_refused(junk):
    data = schema_2() | {"timing": junk}
    data["startup"] = {**data["startup"], "first_step_s": junk}
    rec = ResultRecord.from_json(data)
    assert rec.timing == junk and rec.to_json() == data
    assert Timing.typed(rec.timing).steady_step_s is ABSENT  # readers see "not there"


def test_carried_fills_no_default_in():
    assert ResultRecord.carried({}).to_json() == {}
    assert ResultRecord.carried({}).status is ABSENT
    assert ResultRecord.parse({}).status == "ok"  # a writer's default


def test_measured_and_failed_records_go_through_one_builder_that_keeps_the_stable_keys():
    assert ResultRecord.ok.__func__.__code__.co_names.count("build") == 1
    assert ResultRecord.failed.__func__.__code__.co_names.count("build") == 1
    with pytest.raises(ValueError, match="stable keys"):
        ResultRecord.ok(backend="torch")
    rec = failed.failed_record({"backend": {"name": "torch"}}, "boom")
    assert set(STABLE_KEYS) <= set(rec)
    assert (rec["params"], rec["threads_actual"], rec["epoch_times_s"]) == (None, None, [])


def test_the_failed_path_and_the_worker_use_the_constructors():
    assert "ResultRecord.failed(" in (REPO_ROOT / "twinbench/launch/failed.py").read_text()
    assert "ResultRecord.ok(" in (REPO_ROOT / "twinbench/worker/assemble.py").read_text()


def test_shared_key_names_name_real_fields():
    assert STEADY_STEP_S in Timing.declared() and blocks.MEDIAN in Summary.declared()
    assert blocks.TIMING in ResultRecord.declared()


def every_block() -> list[type[Block]]:
    return [ResultRecord] + [
        v for v in vars(blocks).values() if isinstance(v, type) and issubclass(v, Block)
    ]


@pytest.mark.parametrize("block", every_block(), ids=lambda b: b.__name__)
def test_every_field_is_documented_and_every_nested_block_is_typed(block):
    for f in fields(block):
        if f.name in ("extra", "order"):
            continue
        assert len(f.metadata[DOC]) > 5, f"{block.__name__}.{f.name} has no description"
        nested = f.metadata.get(BLOCK)
        assert nested is None or issubclass(nested, Block)
