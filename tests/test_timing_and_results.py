"""The run clock's arithmetic (with a fake clock) and the atomic result writer."""

from __future__ import annotations

import json
from itertools import count

import pytest

from benchmarks import turn_pairs
from frameworks.timing import RunClock
from twinbench.launch import decide, failed
from twinbench.result import results
from twinbench.worker import resources


def fake_clock(ticks):
    it = iter(ticks)
    return lambda: next(it)


def test_epoch_train_and_step_times_from_known_ticks():
    # epoch: start 0, steps end at 10, 25, 45; validation starts 45; epoch ends 60 (ns x 1e8)
    ticks = [t * 100_000_000 for t in (0, 10, 25, 45, 45, 60)]
    clock = RunClock(now_ns=fake_clock(ticks))
    clock.epoch_begin()
    for _ in range(3):
        clock.step_end()
    clock.validation_begin()
    clock.epoch_end()
    assert clock.epoch_times_s() == pytest.approx([6.0])
    assert clock.train_times_s() == pytest.approx([4.5])
    assert clock.step_times_ns() == [[1_000_000_000, 1_500_000_000, 2_000_000_000]]


def test_the_training_parts_cpu_leaves_validation_out_as_their_wall_time_does():
    """Two epochs, the first validating: a comparison of training parts (the bare-loop table)
    must compare the CPU of the same spans, or validation reads as the loop's overhead."""
    cpu = iter(t * 10**9 for t in (0, 3, 5, 5, 7))  # epoch 1: train 3 s, validate 2 s; epoch 2: 2 s
    clock = RunClock(now_ns=lambda: 0, cpu_ns=lambda: next(cpu))
    clock.epoch_begin()
    clock.validation_begin()
    clock.epoch_end()
    clock.epoch_begin()
    clock.epoch_end()  # no validation this epoch: its training part ends with it
    used = resources.usage(clock)
    assert used["cpu_time_training_s"] == pytest.approx(7.0)  # whole epochs
    assert used["cpu_time_training_steps_s"] == pytest.approx(5.0)  # training parts only


def test_a_pair_without_validation_takes_the_training_parts_cpu():
    record = {
        "status": "ok",
        "epoch_times_s": [6.0, 6.0],
        "train_times_s": [4.0, 4.0],
        "resources": {"cpu_time_training_s": 12.0, "cpu_time_training_steps_s": 8.0},
    }
    assert turn_pairs.twinbench_sample(record, validation=False).cpu_s == 8.0
    assert turn_pairs.twinbench_sample(record, validation=True).cpu_s == 12.0
    del record["resources"]["cpu_time_training_steps_s"]  # a record from before the split
    assert turn_pairs.twinbench_sample(record, validation=False).cpu_s == 12.0
    assert decide.training_cpu_s(record) == 12.0


def test_steps_are_kept_per_epoch():
    ticks = count()
    clock = RunClock(now_ns=lambda: next(ticks))
    for _ in range(2):
        clock.epoch_begin()
        clock.step_end()
        clock.step_end()
        clock.epoch_end()
    assert clock.step_times_ns() == [[1, 1], [1, 1]]
    assert len(clock.epoch_times_s()) == 2


def test_write_atomic_replaces_whole_files_and_leaves_no_temporary(tmp_path):
    path = tmp_path / "result.json"
    results.write_atomic(path, {"status": "ok", "n": 1})
    results.write_atomic(path, {"status": "ok", "n": 2})
    assert json.loads(path.read_text()) == {"status": "ok", "n": 2}
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]


def test_a_failed_write_keeps_the_previous_file_intact(tmp_path):
    path = tmp_path / "result.json"
    results.write_atomic(path, {"status": "ok"})
    with pytest.raises(ValueError):  # NaN is not JSON: refused before the rename
        results.write_atomic(path, {"status": "ok", "loss": float("nan")})
    assert json.loads(path.read_text()) == {"status": "ok"}
    assert [p.name for p in tmp_path.iterdir()] == ["result.json"]


def test_failed_record_keeps_every_stable_key():
    record = failed.failed_record({"backend": {"name": "torch"}, "model": {"name": "mlp"}}, "boom")
    assert set(results.STABLE_KEYS) <= set(record)
    assert record["status"] == "failed" and record["error"] == "boom"


def test_a_failed_record_names_its_machine_so_reports_can_place_it():
    record = failed.failed_record({"backend": {"name": "torch"}}, "worker killed by signal 9")
    assert record["environment"]["fingerprint"]
    assert record["environment"]["logical_cores"] >= 1
