"""Framework, hardware and software effects, baselines and costs on hand-made records.

Every expected number is worked out by hand from the epoch times written here.
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from analysis.compute import pipeline
from analysis.errors import AnalysisError
from analysis.load.table import runs_table
from twinbench import stats

from . import test_analysis_fakes as fakes

# Per-run training time = sum of epoch times:
#   torch cpu1 3.0, cpu2 1.5  (speed-up 2.0, efficiency 1.0)
#   tensorflow cpu1 6.0, cpu2 4.0  (speed-up 1.5, efficiency 0.75)
TIMES = {
    ("torch", 1): [[1.0, 2.0]],
    ("torch", 2): [[0.75, 0.75]],
    ("tensorflow", 1): [[2.0, 4.0]],
    ("tensorflow", 2): [[2.0, 2.0]],
}


def analyze(*dirs, **options):
    return pipeline.analyze(runs_table(list(dirs)), pipeline.Options(inputs=list(dirs), **options))


def row(df, **where):
    mask = True
    for key, value in where.items():
        mask = mask & (df[key] == value)
    found = df[mask]
    assert len(found) == 1, (where, found)
    return found.iloc[0]


def test_framework_ratio_per_core_count(tmp_path):
    fakes.sweep(tmp_path, TIMES)
    fe = analyze(tmp_path).framework
    assert row(fe, cpus=1)["ratio"] == 3.0 / 6.0
    assert row(fe, cpus=2)["ratio"] == 1.5 / 4.0
    assert row(fe, cpus=1)["reference"] == "torch" and row(fe, cpus=1)["other"] == "tensorflow"
    assert row(fe, cpus=1)["reference_time"] == 3.0 and row(fe, cpus=1)["other_time"] == 6.0
    # One run per side: a ratio, but no interval and a verdict that says so.
    assert math.isnan(row(fe, cpus=1)["ratio_ci_low"])
    assert row(fe, cpus=1)["verdict"] == "undecided (single runs: no interval)"


def test_speedup_and_efficiency_per_framework(tmp_path):
    fakes.sweep(tmp_path, TIMES)
    an = analyze(tmp_path)
    hw = an.hardware
    assert row(hw, backend="torch", cpus=2)["speedup"] == 2.0
    assert row(hw, backend="torch", cpus=2)["efficiency"] == 1.0
    assert row(hw, backend="tensorflow", cpus=2)["speedup"] == 1.5
    assert row(hw, backend="tensorflow", cpus=2)["efficiency"] == 0.75
    assert row(hw, backend="tensorflow", cpus=1)["speedup"] == 1.0
    gap = row(an.scaling_gap, cpus=2)
    assert gap["speedup_ratio"] == pytest.approx(2.0 / 1.5)
    assert gap["verdict"].startswith("torch scales better")


def two_sweeps(root: Path, times: list[dict]) -> None:
    """sweepA and sweepB under `root`, an hour apart, each a sweep folder (multirun.yaml) of
    the runs `times` gives it."""
    for (sweep, hour), each in zip((("sweepA", 10), ("sweepB", 11)), times, strict=True):
        (root / sweep).mkdir()
        (root / sweep / "multirun.yaml").write_text("hydra: {}\n")
        fakes.sweep(root / sweep, each, started=f"2026-12-06T{hour}:00:00+00:00")


def test_a_speed_up_measured_in_two_sweeps_is_two_values_not_one_sample(tmp_path):
    # torch's 1-core run takes 3.0 s in both sweeps, its 2-core runs 2.0 s in the first (1.5x)
    # and 1.5 s in the second (2.0x), three repeats each. Pooled, twelve runs would give a
    # narrow Welch interval around about 1.7; two sweeps give one value each.
    two_sweeps(tmp_path, [{("torch", 1): [[1.5, 1.5]] * 3, ("torch", 2): [[e, e]] * 3}
                          for e in (1.0, 0.75)])  # fmt: skip
    hw = row(analyze(tmp_path).hardware, backend="torch", cpus=2)
    assert hw["speedup_sweeps"] == 2
    assert hw["speedup"] == pytest.approx(math.sqrt(1.5 * 2.0))
    assert hw["speedup_ci_low"] < 1.0 < 3.0 < hw["speedup_ci_high"]  # t with one degree
    # one sweep alone keeps the runs' own interval
    alone = row(analyze(tmp_path / "sweepA").hardware, backend="torch", cpus=2)
    assert alone["speedup_sweeps"] == 0 and alone["speedup"] == 1.5


def test_repeats_give_medians_and_the_stats_modules_intervals(tmp_path):
    # Three repeats per side; training times torch 3.0, 3.25, 2.75 and tensorflow 6.0, 6.5, 5.5.
    times = {
        ("torch", 1): [[1.0, 2.0], [1.25, 2.0], [0.75, 2.0]],
        ("tensorflow", 1): [[2.0, 4.0], [2.5, 4.0], [1.5, 4.0]],
    }
    fakes.sweep(tmp_path, times)
    an = analyze(tmp_path)
    fe = row(an.framework, cpus=1)
    assert fe["ratio"] == 0.5  # median 3.0 / median 6.0
    assert fe["n_reference"] == 3 and fe["n_other"] == 3
    # The interval is twinbench.stats.ratio_ci's over the per-run totals (not per epoch).
    _, lo, hi = stats.ratio_ci([3.0, 3.25, 2.75], [6.0, 6.5, 5.5])
    assert (fe["ratio_ci_low"], fe["ratio_ci_high"]) == (lo, hi)
    assert lo <= 0.5 <= hi
    torch_cfg = row(an.configs, config_label="torch cpu1")
    assert torch_cfg["time"] == 3.0
    assert (torch_cfg["time_ci_low"], torch_cfg["time_ci_high"]) == (2.75, 3.25)
    # n = 3 at 95%: the order-statistics interval is [min, max] = 0.5 / 3.0 wide: unstable.
    assert torch_cfg["unstable"] and "unstable" in torch_cfg["flags"]


def test_default_baseline_is_the_tensorflow_run_with_most_cores_and_costs_scale_with_cores(
    tmp_path,
):
    fakes.sweep(tmp_path, TIMES)
    an = analyze(tmp_path)
    base = an.baselines["twinbench"]
    assert base.label == "tensorflow cpu2" and "most cores" in base.reason
    rel = an.relative
    assert row(rel, config_label="torch cpu1")["time_rel"] == 3.0 / 4.0
    # Price is linear in cores: (3.0 s x 1 core) / (4.0 s x 2 cores).
    assert row(rel, config_label="torch cpu1")["cost_rel"] == pytest.approx(3.0 / 8.0)
    assert row(rel, config_label="tensorflow cpu2")["time_rel"] == 1.0


def test_a_gpu_run_becomes_the_default_baseline_and_is_priced_as_the_gpu_instance(tmp_path):
    fakes.sweep(tmp_path, TIMES)
    fakes.write(tmp_path, "gpu", fakes.record("torch", 2, [0.25, 0.25], device="cuda"))
    pricing = tmp_path / "prices.yaml"
    pricing.write_text(
        "name: test\ncurrency: USD\ndate: '2026-01-01'\nsource: made up for a test\n"
        "cpu: {hourly: 3.6, vcpus: 1, premium: 0}\ngpu: {hourly: 36.0}\n"
    )
    an = analyze(tmp_path, pricing=str(pricing))
    assert an.baselines["twinbench"].label == "torch gpu"
    rel = an.relative
    # 0.5 s on the GPU at 36/h = 0.005; tensorflow cpu2: 4.0 s x 2 cores x 3.6/h = 0.008.
    assert row(rel, config_label="torch gpu")["cost"] == pytest.approx(0.005)
    assert row(rel, config_label="tensorflow cpu2")["cost"] == pytest.approx(0.008)
    assert row(rel, config_label="tensorflow cpu2")["time_rel"] == 8.0
    assert row(rel, config_label="tensorflow cpu2")["cost_rel"] == pytest.approx(1.6)


def test_baseline_option_by_label_or_by_filters(tmp_path):
    fakes.sweep(tmp_path, TIMES)
    by_label = analyze(tmp_path, baseline="torch cpu1")
    assert row(by_label.relative, config_label="tensorflow cpu1")["time_rel"] == 2.0
    by_filter = analyze(tmp_path, baseline="backend=torch,cpus=2")
    assert by_filter.baselines["twinbench"].label == "torch cpu2"
    with pytest.raises(AnalysisError, match="ambiguous"):
        analyze(tmp_path, baseline="backend=torch")
    with pytest.raises(AnalysisError, match="no common baseline"):
        analyze(tmp_path, baseline="torch cpu64")


def test_no_common_baseline_is_an_error_naming_the_workloads(tmp_path):
    fakes.write(tmp_path, "a", fakes.record("torch", 1, [1.0], model="mlp"))
    fakes.write(tmp_path, "b", fakes.record("tensorflow", 2, [1.0], model="cnn"))
    with pytest.raises(AnalysisError, match=r"no common baseline.*mlp: torch cpu1.*cnn"):
        analyze(tmp_path)


def test_software_effect_groups_by_settings_against_the_default_preset(tmp_path):
    on, off = {"onednn": True, "xla": False}, {"onednn": False, "xla": False}
    fakes.write(tmp_path, "on", fakes.record("tensorflow", 1, [1.0, 1.0], settings=on,
                                             opt="default"))  # fmt: skip
    fakes.write(tmp_path, "off", fakes.record("tensorflow", 1, [1.5, 1.5], settings=off,
                                              opt="tuned"))  # fmt: skip
    fakes.write(tmp_path, "torch", fakes.record("torch", 1, [0.5, 0.5]))
    an = analyze(tmp_path)
    se = row(an.software, backend="tensorflow")
    assert se["reference_settings"] == "onednn=on, xla=off"
    assert se["variant_settings"] == "tuned, onednn=off, xla=off"  # labels name the preset
    assert se["time_ratio"] == 1.5
    assert se["verdict"] == "undecided (single runs: no interval)"
    # The headline framework ratio uses TensorFlow's default preset: 1.0 / 2.0.
    fe = an.framework
    assert row(fe, headline=True)["ratio"] == 0.5
    assert len(fe) == 2  # and the table lists the other pairing too
    assert sorted(an.configs["config_label"]) == [
        "tensorflow cpu1 [onednn=on, xla=off]",
        "tensorflow cpu1 [tuned, onednn=off, xla=off]",
        "torch cpu1",
    ]


def test_failed_runs_are_kept_and_shown_never_dropped(tmp_path):
    fakes.sweep(tmp_path, TIMES)
    fakes.write(tmp_path, "dead", fakes.failed("torch", 4, "worker killed by signal 9"))
    an = analyze(tmp_path)
    assert len(an.runs) == 5
    dead = row(an.failed, cpus=4)
    assert dead["error"] == "worker killed by signal 9"
    cfg = row(an.configs, config_label="torch cpu4")
    assert cfg["n_ok"] == 0 and cfg["flags"] == "1 failed"
    assert row(an.relative, config_label="torch cpu4")["n_failed"] == 1
    from analysis.render import terminal

    assert "worker killed by signal 9" in terminal.render(an)


def test_peak_fraction_is_used_where_measured(tmp_path):
    flops = {"per_step": 1e9, "achieved_gflops": 25.0, "peak_gflops": 100.0,
             "fraction_of_peak": 0.25}  # fmt: skip
    fakes.write(tmp_path, "a", fakes.record("torch", 1, [1.0], flops=flops))
    fakes.write(tmp_path, "b", fakes.record("tensorflow", 1, [1.0]))
    pk = analyze(tmp_path).peak
    assert row(pk, config_label="torch cpu1")["fraction_of_peak"] == 0.25
    assert not row(pk, config_label="tensorflow cpu1")["measured"]


def test_fractions_of_peak_are_against_the_machines_best_unshared_probe(tmp_path):
    # Three runs of one machine at 1 core: the first's worker read a peak halved by a second
    # probe beside it (50 GFLOP/s, before probes checked their share: nothing flags it), the
    # second a quiet 110, the third a probe that shared its cores (flagged; 120, higher only
    # to show it is never chosen). A GEMM peak is capacity: the best undisturbed probe is it.
    def run(name, peak, achieved, shared=None):
        flops = {
            "per_step": 1e9,
            "achieved_gflops": achieved,
            "peak_gflops": peak,
            "fraction_of_peak": achieved / peak,
            "achieved_above_peak": achieved > peak,
        }
        rec = fakes.record("torch", 1, [1.0], flops=flops)
        rec["machine_peak"] = {
            "cores": 1,
            "machine_peak_gflops": peak,
            "best_library": "numpy",
            "probe": {"size": 2048},
            "shared_cores": shared or {},
        }
        fakes.write(tmp_path, name, rec)

    run("halved", 50.0, 55.0)
    run("quiet", 110.0, 55.0)
    run("shared", 120.0, 55.0, shared={"numpy": 0.5})
    an = analyze(tmp_path)
    assert an.runs["fraction_of_peak"].tolist() == [0.5, 0.5, 0.5]  # 55 / 110 each
    assert sorted(an.runs["fraction_of_own_peak"].round(3)) == [0.458, 0.5, 1.1]
    assert not an.runs["achieved_above_peak"].astype(bool).any()
    from analysis.compute import machine_peak

    (line, _) = machine_peak.lines(an.runs)
    assert line.startswith("machine peak cpus=1: 110 GFLOP/s")


def test_runs_with_other_thread_counts_stay_out_of_the_scaling_series(tmp_path):
    fakes.sweep(tmp_path, TIMES)
    fakes.write(tmp_path, "t1", fakes.record("torch", 2, [3.0, 3.0], threads=(1, 1)))
    an = analyze(tmp_path)
    assert "torch cpu2 t1/1" in set(an.configs["config_label"])
    assert "torch cpu2 t1/1" not in set(an.hardware["config_label"])
    assert row(an.hardware, config_label="torch cpu2")["speedup"] == 2.0


def test_steady_step_metric_compares_each_runs_median_step(tmp_path):
    fakes.write(tmp_path, "a", fakes.record("torch", 1, [9.0], steady_step=0.25))
    fakes.write(tmp_path, "b", fakes.record("tensorflow", 1, [1.0], steady_step=0.125))
    fe = analyze(tmp_path, metric="steady_step").framework
    assert row(fe, cpus=1)["ratio"] == 2.0  # 0.25 / 0.125; the epoch times do not enter
    by_time = analyze(tmp_path, metric="train_time").framework
    assert row(by_time, cpus=1)["ratio"] == 9.0
    assert row(by_time, cpus=1)["steady_step_ratio"] == 2.0  # shown beside it either way
    fakes.write(tmp_path, "c", fakes.record("torch", 2, [1.0]))  # an older record: no timing
    with pytest.raises(AnalysisError, match="steady_step"):
        analyze(tmp_path / "c", metric="steady_step")


def test_other_batch_sizes_are_other_workloads_and_other_seeds_are_flagged(tmp_path):
    fakes.write(tmp_path, "a", fakes.record("torch", 1, [1.0]))
    other_seed = fakes.record("torch", 1, [1.5], repeat=1)
    other_seed["config"]["seed"] = 1
    fakes.write(tmp_path, "b", other_seed)
    big_batch = fakes.record("torch", 1, [0.5], run_key="big")
    big_batch["batch_size"] = big_batch["config"]["model"]["batch_size"] = 512
    fakes.write(tmp_path, "c", big_batch)
    an = analyze(tmp_path)
    assert sorted(an.configs["workload"]) == ["mlp (1 epochs, <=20 steps, batch 128)",
                                              "mlp (1 epochs, <=20 steps, batch 512)"]  # fmt: skip
    merged = row(an.configs, workload="mlp (1 epochs, <=20 steps, batch 128)")
    assert merged["n_ok"] == 2 and merged["time"] == 1.25
    assert "2 different configs merged" in merged["flags"]


def test_analysis_never_imports_a_framework(tmp_path):
    import subprocess
    import sys

    from twinbench.paths import REPO_ROOT

    fakes.sweep(tmp_path / "s", TIMES)
    code = (
        "import sys; from analysis.__main__ import main; "
        f"rc = main([{str(tmp_path / 's')!r}, '--out', {str(tmp_path / 'r')!r}]); "
        "bad = [m for m in ('torch', 'tensorflow', 'keras', 'jax') if m in sys.modules]; "
        "print('imported:', bad); sys.exit(rc or bool(bad))"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True,
                          text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "imported: []" in proc.stdout


def test_the_price_tables_hold_the_stated_rates():
    from analysis.compute import pricing

    old = pricing.load("gce_2017_preemptible")
    assert old.per_second("cuda", None) == 0.745 / 3600
    assert old.per_second("cpu", 8) == 0.060 * 1.0607 / 3600
    assert old.per_second("cpu", 64) == 8 * (0.060 * 1.0607 / 3600)
    current = pricing.load("gce_2026_on_demand")
    assert current.per_second("cpu", 8) * 3600 == pytest.approx(8 * (0.031611 + 4 * 0.004237))
    assert not current.verified and "NOT VERIFIED" in current.describe()
    assert current.per_second("cpu", None) is None


def test_settings_labels_name_only_what_differs_from_the_preset():
    from analysis.load import records

    preset = {"name": "default", "tensorflow": {"onednn": None, "xla": None}}
    default = {"backend": "tensorflow", "config": {"opt": preset,
               "backend": {"name": "tensorflow", "onednn": None, "xla": None}}}  # fmt: skip
    no_xla = {"backend": "tensorflow", "config": {"opt": preset,
              "backend": {"name": "tensorflow", "onednn": None, "xla": True}}}  # fmt: skip
    row_default = records.to_row(records.Record(Path("a"), default))
    row_xla = records.to_row(records.Record(Path("b"), no_xla))
    assert (row_default["settings_label"], row_default["settings_changes"]) == ("default", 0)
    assert row_default["settings_default"] is True
    assert (row_xla["settings_label"], row_xla["settings_changes"]) == ("xla=on", 1)
    assert row_xla["settings_default"] is False  # an override is not the headline


def test_runs_in_two_groups_are_flagged_with_both_groups_named(tmp_path):
    # Ten tensorflow runs: five near 1.75 s and five near 2.31 s, as the outside Keras script
    # gave (issue 12); ten torch runs in one group. Only the tensorflow row says "two modes".
    bimodal = [1.75, 1.74, 1.76, 1.78, 1.8, 2.3, 2.28, 2.35, 2.31, 2.33]
    one = [1.75, 1.74, 1.76, 1.78, 1.8, 1.77, 1.75, 1.79, 1.76, 1.73]
    fakes.sweep(
        tmp_path,
        {("tensorflow", 1): [[t] for t in bimodal], ("torch", 1): [[t] for t in one]},
    )
    configs = analyze(tmp_path).configs
    tf, pt = row(configs, config_label="tensorflow cpu1"), row(configs, config_label="torch cpu1")
    assert tf["multimodal"] and "two modes across runs" in tf["flags"]
    assert "5 near 1.76" in tf["flags"] and "5 near 2.31" in tf["flags"]
    assert not pt["multimodal"] and "two modes" not in pt["flags"]


def test_interleaved_runs_give_a_paired_framework_ratio_with_its_exact_interval(tmp_path):
    # Six rounds in which the machine drifts (every round slower than the last) but torch is
    # always exactly half of TensorFlow's time within a round: the paired ratio is 0.5 with a
    # zero-width interval, where a ratio of medians over the rounds would spread.
    for i in range(6):
        slow = 1.0 + 0.3 * i
        for backend, t in (("torch", 1.0 * slow), ("tensorflow", 2.0 * slow)):
            rec = fakes.record(backend, 1, [t, t], repeat=i, repeats=6)
            rec["pair_id"] = f"series-r{i}"
            fakes.write(tmp_path, f"mlp_{backend}_cpu1/repeat-{i}", rec)
    fe = row(analyze(tmp_path).framework, cpus=1)
    assert fe["ratio_pairs"] == 6
    assert (fe["ratio"], fe["ratio_ci_low"], fe["ratio_ci_high"]) == (0.5, 0.5, 0.5)
    assert fe["verdict"] == "torch faster"


def _paired_ratios(root, ratios):
    """One interleaved sweep whose round i has torch's time / TensorFlow's = ratios[i]."""
    for i, share in enumerate(ratios):
        for backend, t in (("torch", share), ("tensorflow", 1.0)):
            rec = fakes.record(backend, 1, [t, t], repeat=i, repeats=len(ratios))
            rec["pair_id"] = f"series-r{i}"
            fakes.write(root, f"mlp_{backend}_cpu1/repeat-{i}", rec)
    return row(analyze(root).framework, cpus=1)


def test_a_framework_verdict_reads_its_interval_at_the_decision_margin(tmp_path):
    # Six pairs: the exact interval of their median is [min, max]. The decision engine's margin
    # (conf/decision/default.yaml, 5%) decides as a deciding sweep would over the same interval:
    # beyond it a side is faster; inside it the two are equivalent; an interval that excludes 1
    # but crosses it names the side ahead and decides nothing (it used to say "torch faster").
    beyond = _paired_ratios(tmp_path / "beyond", [0.80, 0.81, 0.82, 0.83, 0.84, 0.85])
    assert beyond["verdict"] == "torch faster"
    within = _paired_ratios(tmp_path / "within", [0.97, 0.98, 0.99, 1.00, 1.01, 1.02])
    assert within["verdict"] == "equivalent within +-5%"
    across = _paired_ratios(tmp_path / "across", [0.91, 0.92, 0.94, 0.95, 0.97, 0.98])
    assert (across["ratio_ci_low"], across["ratio_ci_high"]) == (0.91, 0.98)
    # torch's time is 0.98 to 0.91 of TensorFlow's: TensorFlow takes 1/0.98 - 1 = 2% to
    # 1/0.91 - 1 = 10% longer
    assert across["verdict"] == (
        "undecided (torch faster by 2% to 10%: the interval crosses the +-5% margin)"
    )
    slower = _paired_ratios(tmp_path / "slower", [1.02, 1.03, 1.04, 1.05, 1.06, 1.08])
    assert slower["verdict"] == (
        "undecided (tensorflow faster by 2% to 8%: the interval crosses the +-5% margin)"
    )


def test_fewer_than_six_pairs_give_no_paired_interval_they_cannot_reach_95_percent(tmp_path):
    # Three interleaved rounds, torch at 0.90-0.94 of TensorFlow within each while the machine
    # slows round by round. The exact interval of three pairs' median is their [min, max], a 75%
    # interval: it read "torch faster" ([0.90, 0.94] lies beyond the margin), and two such pairs
    # named a side in 16% of A/A pairs of real runs (measurements/2026-12-07/analysis-margin).
    # Below six pairs the repeats' own interval decides, and over the drift it decides nothing.
    for i, share in enumerate([0.90, 0.92, 0.94]):
        slow = 1.0 + 0.5 * i
        for backend, t in (("torch", share * slow), ("tensorflow", slow)):
            rec = fakes.record(backend, 1, [t, t], repeat=i, repeats=3)
            rec["pair_id"] = f"series-r{i}"
            fakes.write(tmp_path, f"mlp_{backend}_cpu1/repeat-{i}", rec)
    fe = row(analyze(tmp_path).framework, cpus=1)
    assert fe["ratio_pairs"] == 0  # not paired: the ratio of medians over independent repeats
    assert fe["verdict"].startswith("undecided")


def test_the_tables_read_intervals_at_the_margin_the_inputs_sweep_decided_at(tmp_path):
    # A deciding sweep run with hydra.sweeper.decision.margin=0.1: its decisions.json carries
    # the design, and the tables read their intervals at +-10% too, so that the report's tables
    # and its decisions answer the same question. [0.91, 0.98] lies inside +-10%.
    root = tmp_path / "sweep"
    root.mkdir()
    (root / "decisions.json").write_text(
        json.dumps({"design": {"margin": 0.1, "alpha": 0.05}, "series": []})
    )
    across = _paired_ratios(root, [0.91, 0.92, 0.94, 0.95, 0.97, 0.98])
    assert across["verdict"] == "equivalent within +-10%"


def test_pairs_from_two_sweeps_are_two_values_not_one_sample(tmp_path):
    # Two sweeps, six rounds each: torch is exactly half of TensorFlow's time in every pair of
    # the first and 0.6 of it in every pair of the second. Pooled, twelve pairs would give the
    # exact interval [0.5, 0.6] and "torch faster"; two sessions cannot say that.
    for sweep, share in (("sweepA", 0.5), ("sweepB", 0.6)):
        for i in range(6):
            for backend, t in (("torch", share), ("tensorflow", 1.0)):
                rec = fakes.record(backend, 1, [t, t], repeat=i, repeats=6)
                rec["pair_id"] = f"{sweep}-r{i}"
                fakes.write(tmp_path, f"{sweep}/mlp_{backend}_cpu1/repeat-{i}", rec)
    fe = row(analyze(tmp_path).framework, cpus=1)
    assert fe["ratio_pairs"] == 12 and fe["ratio_sweeps"] == 2
    assert fe["ratio"] == pytest.approx(math.sqrt(0.3))
    assert fe["ratio_ci_low"] < 0.5 and fe["ratio_ci_high"] > 1.0
    assert fe["verdict"] == "undecided (interval includes 1)"


def test_a_speed_up_pairs_the_core_counts_of_each_round_of_an_interleaved_sweep(tmp_path):
    # An interleaved sweep runs round r at 1 core and then at 2 cores, seconds apart. The host
    # slows round by round (x1.0 to x2.5) and 1 core decides after round 3 while 2 cores go on
    # to round 7: within every round 2 cores take exactly half the time, so the speed-up is
    # 2.0 with no width, where the medians of all runs would meet slow 2-core rounds.
    def interleaved(sweep: Path, shares: dict[int, list[int]], hour: int) -> None:
        sweep.mkdir()
        (sweep / "multirun.yaml").write_text("hydra: {}\n")
        for cpus, rounds in shares.items():
            for i in rounds:
                t = (1.0 + 0.3 * i + hour / 100) * 2.0 / cpus
                rec = fakes.record(
                    "torch",
                    cpus,
                    [t, t],
                    repeat=i,
                    repeats=8,
                    started=f"2026-12-07T{hour}:0{i}:00+00:00",
                )
                rec["pair_id"] = f"cores{cpus}-r{i}"  # the series differs, the round does not
                fakes.write(sweep, f"torch_cpu{cpus}/repeat-{i}", rec)

    interleaved(tmp_path / "one", {1: [0, 1, 2, 3], 2: list(range(8))}, 10)
    hw = row(analyze(tmp_path / "one").hardware, backend="torch", cpus=2)
    assert hw["speedup_rounds"] == 4 and hw["speedup_sweeps"] == 0
    assert (hw["speedup"], hw["speedup_ci_low"], hw["speedup_ci_high"]) == pytest.approx((2, 2, 2))
    # rounds of two sweeps: each sweep one value, its rounds' median
    interleaved(tmp_path / "two", {1: [0, 1, 2], 2: [0, 1, 2, 3]}, 11)
    both = row(analyze(tmp_path / "one", tmp_path / "two").hardware, backend="torch", cpus=2)
    assert both["speedup_rounds"] == 7 and both["speedup_sweeps"] == 2
    assert both["speedup"] == pytest.approx(2.0)


def test_without_pair_ids_or_with_unmatched_rounds_the_ratio_is_of_independent_repeats(tmp_path):
    times = {
        ("torch", 1): [[1.0, 2.0], [1.25, 2.0], [0.75, 2.0]],
        ("tensorflow", 1): [[2.0, 4.0], [2.5, 4.0], [1.5, 4.0]],
    }
    paths = fakes.sweep(tmp_path, times)
    for n, path in enumerate(paths):  # every run in a round of its own: nothing pairs up
        rec = json.loads(path.read_text())
        rec["pair_id"] = f"series-r{n}"
        path.write_text(json.dumps(rec))
    fe = row(analyze(tmp_path).framework, cpus=1)
    assert fe["ratio_pairs"] == 0
    assert fe["ratio"] == 0.5  # median 3.0 / median 6.0, as without pair ids


def test_gpu_runs_stand_beside_each_core_count_in_time_and_cost(tmp_path):
    # Fixture records only: two GPU repeats of torch's mlp beside its CPU runs (issue 42 item 4).
    fakes.sweep(tmp_path, TIMES)
    for i, times in enumerate([[0.25, 0.25], [0.2, 0.3]]):
        rec = fakes.record("torch", 2, times, device="cuda", repeat=i, repeats=2)
        fakes.write(tmp_path, f"gpu/repeat-{i}", rec)
    pricing = tmp_path / "prices.yaml"
    pricing.write_text(
        "name: test\ncurrency: USD\ndate: '2026-01-01'\nsource: made up for a test\n"
        "cpu: {hourly: 3.6, vcpus: 1, premium: 0}\ngpu: {hourly: 36.0, description: one fake}\n"
    )
    an = analyze(tmp_path, pricing=str(pricing))
    rows = an.gpu_beside
    # torch only: tensorflow has no GPU run, so none of its rows appear.
    assert set(rows["backend"]) == {"torch"} and list(rows["cpus"]) == [1, 2]
    one = row(rows, cpus=1)
    assert one["gpu_config"] == "torch gpu" and one["gpu_time"] == 0.5
    assert one["gpu_speedup"] == pytest.approx(3.0 / 0.5)
    # 0.5 s of a 36/h GPU instance = 0.005; 3.0 s on one 3.6/h core = 0.003.
    assert one["gpu_cost"] == pytest.approx(0.005) and one["cpu_cost"] == pytest.approx(0.003)
    assert one["cpu_over_gpu_cost"] == pytest.approx(0.6)
    assert one["gpu_priced_as"] == "one fake" and one["price_date"] == "2026-01-01"
    assert math.isnan(one["gpu_speedup_ci_low"])  # one CPU run: no interval
    assert row(rows, cpus=2)["gpu_speedup"] == pytest.approx(1.5 / 0.5)


def test_no_gpu_rows_without_a_gpu_run_or_across_workloads(tmp_path):
    fakes.sweep(tmp_path, TIMES)
    assert analyze(tmp_path).gpu_beside.empty
    # A GPU run of another workload (cnn) has no CPU run to stand beside.
    fakes.write(tmp_path, "gpu", fakes.record("torch", 2, [0.25], device="cuda", model="cnn"))
    assert analyze(tmp_path, strict_baseline=False).gpu_beside.empty


def test_the_hardware_section_shows_the_gpu_beside_the_cores(tmp_path):
    from analysis.render.page import Page
    from analysis.render.sections import hardware

    fakes.sweep(tmp_path / "runs", TIMES)
    fakes.write(tmp_path / "runs", "gpu", fakes.record("torch", 2, [0.25, 0.25], device="cuda"))
    (tmp_path / "out" / "report_files" / "tables").mkdir(parents=True)
    page = Page(out=tmp_path / "out")
    hardware.write_gpu(page, analyze(tmp_path / "runs"))
    html = "".join(page.parts)
    assert "The GPU beside the cores" in html and "g2-standard-4 (1 x NVIDIA L4)" in html
    assert "check that this is the GPU measured" in html


def test_over_capped_runs_the_steady_step_table_leads_and_training_time_says_what_it_is(
    tmp_path,
):
    """README command 1's report put 'torch faster 0.54x' over training time first, under a
    decision of TensorFlow faster per step: a resident worker's life is capped (max_steps),
    so its training time is mostly start-up and warm-up. The verdict already led with the
    steady step for capped runs; the tables now follow it. Uncapped runs keep the 2017 order."""
    from analysis.render import terminal
    from analysis.render.page import Page
    from analysis.render.sections import framework

    def titles(capped: bool) -> tuple[list[str], str]:
        root = tmp_path / str(capped)
        for path in fakes.sweep(root, TIMES, steady_step=0.01):
            record = json.loads(path.read_text())
            record["config"]["max_steps"] = 110 if capped else None
            path.write_text(json.dumps(record))
        an = analyze(root, metric="train_time")  # asked for: auto would compare steady steps
        lines = terminal.framework_lines(an)
        page = Page(root)
        for sub in ("figures", "tables"):  # as report.write makes them
            page.files.joinpath(sub).mkdir(parents=True)
        framework.write(page, an)  # the report's section says it too
        return [x for x in lines if x.startswith("framework effect")], "".join(page.parts)

    (plain, plain_html), (capped, capped_html) = titles(False), titles(True)
    assert "training time (below 1" in plain[0] and "steady-state step time" in plain[1]
    assert "steady-state step time" in capped[0]
    assert "training time (capped runs, max_steps=110: mostly start-up and warm-up" in capped[1]
    assert "Capped runs" in capped_html and "Capped runs" not in plain_html


def test_the_default_metric_is_the_steady_step_where_every_run_is_capped(tmp_path):
    """README command 1's report gave TensorFlow's hardware speed-up by training time (1.02x)
    under the first screen's 1.13x per step: a resident worker is capped at max_steps, so its
    training time is mostly start-up. `--metric auto` (the default) compares steady steps
    there and says why; a run that is not capped keeps the 2017 training time."""
    capped, whole = tmp_path / "capped", tmp_path / "whole"
    for root, cap in ((capped, 110), (whole, None)):
        for path in fakes.sweep(root, TIMES, steady_step=0.01):
            record = json.loads(path.read_text())
            record["config"]["max_steps"] = cap
            path.write_text(json.dumps(record))
    auto = analyze(capped)
    assert auto.options.metric == "steady_step"
    assert auto.metric_note.startswith("every run is capped (max_steps=110)")
    from analysis.render import terminal

    assert "compared: steady-state step time, since every run is capped" in terminal.render(auto)
    assert analyze(whole).options.metric == "train_time" and analyze(whole).metric_note == ""
    asked = analyze(capped, metric="train_time")
    assert asked.options.metric == "train_time" and asked.metric_note == ""
    # one uncapped run among capped ones: the training time, as before
    assert analyze(capped, whole).options.metric == "train_time"


def test_a_time_relative_to_the_baseline_over_two_sweeps_has_the_sweeps_interval(tmp_path):
    # torch cpu1 takes 3.0 s in both sweeps; the baseline (tensorflow cpu1, the only
    # configuration with most cores here) 6.0 s in the first and 4.0 s in the second, three
    # repeats each. Pooled, twelve runs that agree within each sweep give a narrow interval;
    # two sweeps (ratios 0.5 and 0.75) give one value each and a t-interval with one degree.
    two_sweeps(tmp_path, [{("torch", 1): [[1.5, 1.5]] * 3, ("tensorflow", 1): [[e, e]] * 3}
                          for e in (3.0, 2.0)])  # fmt: skip
    rel = row(analyze(tmp_path).relative, config_label="torch cpu1")
    assert rel["time_rel_sweeps"] == 2
    assert rel["time_rel_ci_low"] < 0.5 and rel["time_rel_ci_high"] > 0.75
    assert rel["time_rel_ci_high"] / rel["time_rel_ci_low"] > 10  # t(1): about 0.02-37
    # one sweep alone keeps the runs' own Welch interval (equal runs: a point)
    alone = row(analyze(tmp_path / "sweepA").relative, config_label="torch cpu1")
    assert alone["time_rel_sweeps"] == 0 and alone["time_rel"] == 0.5
    assert alone["time_rel_ci_high"] / alone["time_rel_ci_low"] < 1.01


def test_a_time_relative_over_sweeps_of_unequal_runs_lies_inside_its_interval(tmp_path):
    # Both sweeps say torch takes half the baseline's time. The first has five baseline runs
    # of a fast minute, the second five torch runs of a slow one: the pooled medians' quotient
    # is 3.0 / 2.0 = 1.5, outside the sweeps' interval [0.5, 0.5], and the report's chart
    # stopped on the whisker's negative length. The point is the sweeps' own.
    fast = {("torch", 1): [[0.5, 0.5]], ("tensorflow", 1): [[1.0, 1.0]] * 5}
    slow = {("torch", 1): [[1.5, 1.5]] * 5, ("tensorflow", 1): [[3.0, 3.0]]}
    two_sweeps(tmp_path, [fast, slow])
    rel = row(analyze(tmp_path).relative, config_label="torch cpu1")
    assert rel["time_rel_sweeps"] == 2
    assert rel["time_rel_ci_low"] <= rel["time_rel"] <= rel["time_rel_ci_high"]
    assert rel["time_rel"] == pytest.approx(0.5) and rel["cost_rel"] == pytest.approx(0.5)


def test_a_run_flagged_for_subnormals_flags_its_configuration(tmp_path):
    """The worker's subnormal flag (frameworks/subnormals.py) reaches the configuration's flags,
    beside the drift it explains; an unflagged run of the same table does not."""
    from twinbench.result.blocks import SUBNORMALS_FLAG

    flagged = fakes.record("torch", 1, [1.0])
    flagged["flags"] = [
        f"{SUBNORMALS_FLAG} the steps slowed 1.50x ..., after training 7.03% of the predictions ..."
    ]
    fakes.write(tmp_path, "a", flagged)
    fakes.write(tmp_path, "b", fakes.record("tensorflow", 1, [1.0]))
    an = analyze(tmp_path)
    assert "subnormals computed" in row(an.configs, backend="torch")["flags"]
    assert "subnormals" not in row(an.configs, backend="tensorflow")["flags"]


def test_a_run_flagged_for_page_faults_flags_its_configuration(tmp_path):
    """The worker's page-fault flag (frameworks/allocator.py) reaches the configuration's flags
    with the setting to compare; an unflagged run of the same table does not."""
    from twinbench.result.blocks import PAGE_FAULTS_FLAG

    flagged = fakes.record("torch", 1, [1.0])
    flagged["flags"] = [f"{PAGE_FAULTS_FLAG} the training steps spent 7.9% of their CPU ..."]
    fakes.write(tmp_path, "a", flagged)
    fakes.write(tmp_path, "b", fakes.record("tensorflow", 1, [1.0]))
    an = analyze(tmp_path)
    assert "page faults in the steps (backend.allocator)" in row(an.configs, backend="torch")[
        "flags"]  # fmt: skip
    assert "page faults" not in row(an.configs, backend="tensorflow")["flags"]


def test_a_configuration_counts_the_runs_behind_each_run_flag(tmp_path):
    """One run's page faults among three say '1 of 3 runs'; a lone run's flag counts nothing."""
    from twinbench.result.blocks import PAGE_FAULTS_FLAG

    for i in range(3):
        record = fakes.record("torch", 1, [1.0 + i / 10])
        record["flags"] = [f"{PAGE_FAULTS_FLAG} ..."] if i == 0 else []
        fakes.write(tmp_path, f"t{i}", record)
    alone = fakes.record("tensorflow", 1, [1.0])
    alone["flags"] = [f"{PAGE_FAULTS_FLAG} ..."]
    fakes.write(tmp_path, "tf", alone)
    an = analyze(tmp_path)
    torch_flags = row(an.configs, backend="torch")["flags"]
    assert "page faults in the steps (backend.allocator) (1 of 3 runs)" in torch_flags
    tf_flags = row(an.configs, backend="tensorflow")["flags"]
    assert "page faults in the steps (backend.allocator)" in tf_flags and "of 1 run" not in tf_flags
