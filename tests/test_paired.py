"""Framework ratios from interleaved pairs: per-pair ratios, their median and exact interval."""

from __future__ import annotations

import json

import pytest

from analysis.compute import paired


def run(backend, pair_id, step_s, started="2026-01-01T00:00:00", status="ok", model="mlp"):
    timing = {"steady_step_s": {"median": step_s}, "epoch_s": {"median": step_s * 10}}
    return {
        **{"backend": backend, "pair_id": pair_id, "status": status, "model": model, "cpus": 2},
        **{"started": started, "epoch_times_s": [step_s * 10, step_s * 10], "timing": timing},
    }


def sweep(torch_steps, tf_steps, series="abc"):
    records = []
    for r, (a, b) in enumerate(zip(torch_steps, tf_steps, strict=True)):
        first, second = "2026-01-01T00:00:00", "2026-01-01T00:00:01"
        t0, t1 = (first, second) if r % 2 == 0 else (second, first)
        records += [
            run("torch", f"{series}-r{r}", a, t0),
            run("tensorflow", f"{series}-r{r}", b, t1),
        ]
    return records


def test_each_pair_gives_its_own_ratio_and_the_median_of_them_is_the_comparison():
    # The machine slows by 2x between rounds; torch is always 0.9x TensorFlow within a round.
    torch = [0.9, 1.8, 0.9, 1.8, 0.9, 1.8]
    tf = [1.0, 2.0, 1.0, 2.0, 1.0, 2.0]
    [c] = paired.compare(sweep(torch, tf))
    assert c.ratios == pytest.approx([0.9] * 6)
    assert (c.summary.median, c.summary.ci_low, c.summary.ci_high) == pytest.approx((0.9, 0.9, 0.9))
    assert c.verdict == "torch faster" and c.summary.n == 6
    assert c.as_dict()["reference_first"] == 3  # the order alternated


def test_the_interval_is_the_order_statistic_interval_of_the_ratios():
    ratios = [0.95, 1.02, 0.99, 1.05, 0.97, 1.01, 1.00, 0.98, 1.03]
    [c] = paired.compare(sweep(ratios, [1.0] * 9))
    # n = 9 at 95%: the 2nd and 8th sorted ratios (1 - 2 P(Binomial(9, 1/2) <= 1) = 96%)
    ordered = sorted(ratios)
    assert (c.summary.ci_low, c.summary.ci_high) == pytest.approx((ordered[1], ordered[7]))
    assert c.summary.median == pytest.approx(1.00)
    assert c.verdict.startswith("undecided")


def test_reference_over_other_and_any_reference_can_be_chosen():
    records = sweep([2.0] * 6, [1.0] * 6)
    assert paired.compare(records)[0].summary.median == pytest.approx(2.0)
    [c] = paired.compare(records, reference="tensorflow")
    assert (c.reference, c.other, c.summary.median) == ("tensorflow", "torch", pytest.approx(0.5))
    assert c.verdict == "tensorflow faster"


def test_a_pair_with_a_failed_or_missing_half_is_left_out_and_counted():
    records = sweep([1.0] * 6, [2.0] * 6)
    records[1]["status"] = "failed"  # tensorflow of round 0
    records.append(run("torch", "abc-r6", 1.0))  # its partner never ran
    [c] = paired.compare(records)
    assert c.summary.n == 5 and c.incomplete == 2
    assert [p.pair_id for p in c.pairs] == [f"abc-r{r}" for r in range(1, 6)]


def test_series_are_compared_apart_and_three_frameworks_give_two_comparisons():
    records = sweep([1.0] * 6, [2.0] * 6, "mlp") + sweep([3.0] * 6, [1.0] * 6, "cnn")
    records += [run("jax", f"mlp-r{r}", 4.0) for r in range(6)]
    found = {(c.series, c.other): c.summary.median for c in paired.compare(records)}
    assert found == {("cnn", "tensorflow"): 3.0, ("mlp", "jax"): 0.25, ("mlp", "tensorflow"): 0.5}


def test_records_without_pair_ids_give_no_comparison_and_the_table_says_why():
    records = [run("torch", None, 1.0), run("tensorflow", None, 1.0)]
    assert paired.compare(records) == []
    assert "no interleaved pairs" in paired.table([])


def test_other_metrics_and_a_readable_table():
    [c] = paired.compare(sweep([1.0] * 6, [2.0] * 6), metric="training_s")
    assert c.summary.median == pytest.approx(0.5)
    text = paired.table([c])
    assert "mlp cpus=2 training_s: torch/tensorflow 0.500 [0.500, 0.500]" in text
    with pytest.raises(ValueError, match="unknown metric"):
        paired.compare([], metric="flops")


def test_the_command_reads_a_sweeps_records_and_prints_the_table(tmp_path, capsys):
    from twinbench.result.results import SCHEMA_VERSION

    for i, record in enumerate(sweep([1.0] * 6, [2.0] * 6)):
        (tmp_path / str(i)).mkdir()
        record["schema_version"] = SCHEMA_VERSION
        (tmp_path / str(i) / "result.json").write_text(json.dumps(record))
    assert paired.main([str(tmp_path)]) == 0
    assert "torch/tensorflow 0.500 [0.500, 0.500] (97%, 6 pairs): torch faster" in (
        capsys.readouterr().out
    )
