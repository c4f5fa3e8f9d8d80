"""profile=true: per-layer profiles from each framework's own profiler, taken after the timed
steps, so a profiled run's steady state is the unprofiled run's."""

from __future__ import annotations

import pytest

from analysis import layers, pipeline, terminal
from analysis.table import runs_table

from .conftest import _tiny_sweep

# Two runs in fresh processes differ by their noise alone, which on a shared machine reaches
# 3x between two runs minutes apart (seen while writing this). A profiler inside the timed steps
# only ever slows them, torch's by several times (one record per op, per-module hooks), so the
# bound is one-sided: the profiled run's steady median is at most NOISE x the unprofiled one's.
NOISE = 2.0


@pytest.fixture(scope="module")
def profiled(tmp_path_factory):
    out = tmp_path_factory.mktemp("profiled")
    proc, records = _tiny_sweep(
        out, "profile=true", "measure.profile_steps=3", "measure.profile_warmup_steps=1"
    )
    return out, proc, records


def _by_run(records):
    return {(r["backend"], r["model"]): r for r in records}


def test_profiling_happens_outside_the_timed_steps(tiny_sweep, profiled):
    _, plain = tiny_sweep
    _, _, prof = profiled
    plain, prof = _by_run(plain), _by_run(prof)
    assert set(plain) == set(prof) == {(b, m) for b in ("torch", "tensorflow") for m in
                                       ("mlp", "cnn")}  # fmt: skip
    for key, p in prof.items():
        assert p["profile"]["steps"] == 3 and plain[key]["profile"] is None
        # the same timed steps: the profiled ones were never on the run's clock
        assert p["timing"]["steady_steps"] == plain[key]["timing"]["steady_steps"]
        a = p["timing"]["steady_step_s"]["median"]
        b = plain[key]["timing"]["steady_step_s"]["median"]
        assert a <= NOISE * b, (key, a, b)


def test_ops_map_to_the_models_layer_names_and_the_report_sets_them_side_by_side(profiled):
    out, _, records = profiled
    for r in records:
        ops = r["profile"]["ops_ms"]
        names = {"mlp": {"fc1", "fc2", "predictions"}, "cnn": {"conv1", "conv2", "fc1"}}
        assert names[r["model"]] <= set(ops), (r["backend"], r["model"], ops)
        assert "optimizer" in ops and ops["optimizer"] > 0
    an = pipeline.analyze(runs_table([out]), pipeline.Options(inputs=[out]))
    table = layers.table(an.runs)
    for workload in ("mlp", "cnn"):
        rows = table[table["workload"] == workload]
        assert rows[["torch", "tensorflow"]].notna().all(axis=None), rows
    assert "per-layer profile (profile=true)" in terminal.render(an)
    assert 'id="layers"' in (out / "report.html").read_text()
