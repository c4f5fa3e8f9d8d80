"""A run whose threads outnumber its cores says so (issue 45): `threads=8` on 1 core ran 8
threads time-sharing that core, fell from 36% to 21% of peak, and said nothing. One warning line
before it runs, and a line in the record's `flags`. No framework here: the worker is replaced."""

from __future__ import annotations

from twinbench.config.spec import build_spec
from twinbench.launch import runner
from twinbench.result.record import ResultRecord
from twinbench.worker import assemble

# allow_parallel: no machine lock for a run that never measures
TINY = ("backend=torch", "model=mlp", "cpus=1", "epochs=1", "max_steps=2", "allow_parallel=true")


def test_more_threads_than_cores_warns_once_before_the_run(compose, tmp_path, monkeypatch, capsys):
    measured = []

    def fake_measure_once(spec, config, run_dir):
        measured.append(config)
        return {"status": "ok"}

    monkeypatch.setattr(runner, "measure_once", fake_measure_once)
    runner.run_job(compose(*TINY, "threads=8"), tmp_path)
    warnings = [line for line in capsys.readouterr().err.splitlines() if "oversubscribed" in line]
    assert measured and warnings == [
        "twinbench: warning: oversubscribed: threads=8 on cpus=1 core: the threads time-share "
        "the cores, so the figures measure the oversubscription too (threads=null uses one per "
        "core)"
    ]


def test_the_record_flags_an_oversubscribed_run_and_only_that(compose):
    over = assemble.run_flags(build_spec(compose(*TINY, "threads=8")))
    assert len(over) == 1 and over[0].startswith("oversubscribed: threads=8 on cpus=1")
    assert assemble.run_flags(build_spec(compose(*TINY))) == []
    assert assemble.run_flags(build_spec(compose(*TINY, "threads=1"))) == []
    # `flags` is a declared field of the record: kept through a write and a read
    assert ResultRecord.parse({"flags": over}).to_json()["flags"] == over
