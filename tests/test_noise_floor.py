"""The A/A noise floor (twinbench/measure/noise.py, `twinbench calibrate`): measured from one
configuration against itself, cached per machine and workload, stated in every deciding sweep,
and a margin below it flagged before the first pair. No training runs here: a stand-in run."""

from __future__ import annotations

from pathlib import Path

import pytest

from twinbench.cli.commands import COMMANDS
from twinbench.measure import noise
from twinbench.sequential import Design

DESIGN = Design(margin=0.05, max_pairs=20, max_seconds=None)


def test_the_floor_grows_with_the_spread_and_shrinks_with_more_pairs() -> None:
    quiet, loud = noise.floor_margin(0.01, 20, DESIGN), noise.floor_margin(0.05, 20, DESIGN)
    assert quiet is not None and loud is not None and quiet < loud
    assert noise.floor_margin(0.05, 40, DESIGN) < loud
    assert noise.floor_margin(0.05, 3, DESIGN) is None  # 3 pairs: still the whole line


def _calibrated(tmp_path: Path, wobble: list[float]) -> dict:
    """A/A pairs whose first run takes wobble[i] times the second's."""

    def run_pair(i: int) -> tuple[dict[str, float], dict[str, float]]:
        return {"wall": 0.01 * wobble[i], "cpu": 1.0 * wobble[i]}, {"wall": 0.01, "cpu": 1.0}

    return noise.calibrate(
        "AMD EPYC x2", "mlp-e2-sNone-cpus2", run_pair, len(wobble), DESIGN, tmp_path,
        say=lambda _: None, about={"backend": "torch"},
    )  # fmt: skip


def test_calibration_caches_the_spread_of_the_pairs_and_reads_it_back(tmp_path: Path) -> None:
    record = _calibrated(tmp_path, [1.0, 1.04, 0.97, 1.02, 0.99, 1.01])
    wall = record["measures"]["wall"]
    assert wall["ratios"] == pytest.approx([1.0, 1.04, 0.97, 1.02, 0.99, 1.01])
    assert 0.01 < wall["log_ratio_sd"] < 0.05
    assert wall["floor_margin"] == pytest.approx(
        noise.floor_margin(wall["log_ratio_sd"], 20, DESIGN)
    )
    again = noise.read_floor("AMD EPYC x2", "mlp-e2-sNone-cpus2", tmp_path)
    assert again is not None and again["measures"] == record["measures"]
    assert again["backend"] == "torch"
    assert noise.read_floor("AMD EPYC x2", "mlp-e2-sNone-cpus1", tmp_path) is None


def test_a_margin_below_the_floor_is_flagged_and_one_above_is_not(tmp_path: Path) -> None:
    record = _calibrated(tmp_path, [1.0, 1.10, 0.90, 1.08, 0.93, 1.12])
    floor = record["measures"]["wall"]["floor_margin"]
    assert "WARNING" in noise.describe(record, "wall", margin=floor / 2)
    assert "WARNING" not in noise.describe(record, "wall", margin=floor * 1.5)
    assert "not calibrated" in noise.describe(None, "wall", margin=0.05)


def test_calibrate_is_a_registered_command_that_refuses_too_few_pairs() -> None:
    command = COMMANDS["calibrate"]
    with pytest.raises(SystemExit) as exit_:
        command.main(["--pairs", "2"], "twinbench calibrate")
    assert exit_.value.code == 2


def test_calibration_alternates_which_half_starts_first_as_the_deciding_sweep_does(
    monkeypatch, tmp_path: Path
) -> None:
    """A stand-in for the pair in turns: whichever job starts first steps in 1.0 s, the other in
    2.0 s (an order effect). A/B must then be 0.5 in one pair and 2 in the next, so the floor's
    spread holds the order effect instead of hiding it as a constant."""
    import argparse

    from twinbench.cli import calibrate
    from twinbench.launch import together

    def in_turns(jobs, ticks, gap_s):
        return [
            [{"status": "ok", "timing": {"steady_step_s": {"median": step}}, "resources": {}}]
            for step in (1.0, 2.0)  # first started, second started
        ]

    monkeypatch.setattr(together, "run_together", in_turns)
    args = argparse.Namespace(
        backend="torch", model="mlp", epochs=2, cpus=1, max_steps=5, allocator="default"
    )
    ratios = []
    for i in range(4):
        a, b = calibrate.pair_in_turns(args, tmp_path, DESIGN, i)
        ratios.append(a["wall"] / b["wall"])
    assert ratios == [0.5, 2.0, 0.5, 2.0]


COMPARED = {"wall": [1.20, 1.25, 1.17, 1.22, 1.19], "cpu": [1.1, 1.12, 1.09, 1.11, 1.1]}


def test_a_comparison_without_calibration_caches_the_spread_of_its_own_pairs(
    tmp_path: Path,
) -> None:
    workload = "mlp-e1-s30-cpus1-resident"
    record = noise.from_comparison("AMD EPYC x2", workload, COMPARED, DESIGN, None, tmp_path)
    assert record is not None and record["source"] == noise.COMPARISON and record["pairs"] == 5
    # the spread of the log ratios around the effect, not their distance from 1
    assert record["measures"]["wall"]["log_ratio_sd"] < 0.05
    line = noise.describe(noise.read_floor("AMD EPYC x2", workload, tmp_path), "wall")
    assert "from the 5 A/B pairs of a comparison" in line and "no A/A calibration" in line
    assert "not calibrated" not in line
    # too few pairs give no floor; a later comparison's pairs replace a comparison's floor
    four = {"wall": [1.0, 1.1, 1.05, 0.98]}
    assert noise.from_comparison("x", "w", four, DESIGN, None, tmp_path) is None
    more = {"wall": COMPARED["wall"] * 2, "cpu": COMPARED["cpu"] * 2}
    again = noise.from_comparison("AMD EPYC x2", workload, more, DESIGN, None, tmp_path)
    assert again is not None and again["pairs"] == 10


def test_a_comparison_never_replaces_an_a_a_calibration(tmp_path: Path) -> None:
    calibrated = _calibrated(tmp_path, [1.0, 1.04, 0.97, 1.02, 0.99, 1.01])
    workload = "mlp-e2-sNone-cpus2"
    assert noise.from_comparison("AMD EPYC x2", workload, COMPARED, DESIGN, None, tmp_path) is None
    kept = noise.read_floor("AMD EPYC x2", workload, tmp_path)
    assert kept["measures"] == calibrated["measures"] and "source" not in kept
    assert "6 A/A pairs" in noise.describe(kept, "wall")


def test_a_decided_series_states_the_floor_its_own_pairs_show(monkeypatch, tmp_path) -> None:
    from twinbench.launch import decide, decide_sweep

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    design = Design(margin=0.05, max_pairs=5, max_seconds=None)
    series = decide.Series("cpus=1", design, 5, floor=noise.describe(None, "wall"))

    def run(step_s: float, cpu_s: float) -> dict:
        return {"status": "ok", "timing": {"steady_step_s": {"median": step_s}},
                "resources": {"cpu_time_training_s": cpu_s}}  # fmt: skip

    for wall, cpu in zip(COMPARED["wall"], COMPARED["cpu"], strict=True):
        series.add({"tensorflow": run(wall, cpu), "torch": run(1.0, 1.0)}, 1.0)
    assert series.done, "the stand-in pairs should end the series"
    decide_sweep.floor_from_pairs(series, ("AMD EPYC x2", "mlp-e1-s30-cpus1"), design)
    assert "A/B pairs of a comparison" in series.floor
    assert "A/B pairs of a comparison" in series.line()
    # unfinished, or with no place to cache it: the line stays as it was
    fresh = decide.Series("cpus=2", design, 4, floor="noise floor: not calibrated")
    decide_sweep.floor_from_pairs(fresh, ("AMD EPYC x2", "w"), design)
    assert fresh.floor == "noise floor: not calibrated"


def test_a_floor_under_the_retain_allocator_is_cached_and_looked_up_apart_from_the_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Under `retain` a torch unit spread 0.018 where the default's spread 0.104: a floor
    calibrated under one allocator must not be read as the other's. The default's key is the one
    floors were always cached under, so existing caches stay found."""
    from types import SimpleNamespace

    from hydra import compose, initialize_config_dir

    from twinbench.cli import calibrate
    from twinbench.launch import decide_sweep
    from twinbench.paths import CONF_DIR
    from twinbench.sequential import load_design

    default = noise.workload_key("mlp", 2, None, 1, "resident")
    assert default == "mlp-e2-sNone-cpus1-resident"
    assert noise.workload_key("mlp", 2, None, 1, "resident", "default") == default
    retain = noise.workload_key("mlp", 2, None, 1, "resident", "retain")
    assert retain != default
    cached: list[str] = []

    def stop(_fingerprint, workload, *_args, **_kw):
        cached.append(workload)
        raise SystemExit(0)

    monkeypatch.setattr(noise, "calibrate", stop)
    for mode in ("retain", "default"):
        with pytest.raises(SystemExit):
            calibrate.main(["--cpus", "1", "--pairing", "resident", "--allocator", mode,
                            "--cache-dir", str(tmp_path)])  # fmt: skip
    assert cached[0] == f"{cached[1]}-malloc-retain"  # the same workload, its own floor
    design = load_design(pairing="resident")  # as calibrate loads it

    def load(_config, job):  # the deciding sweep's composition of one job
        with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
            return compose("config", overrides=job)

    sweeper = SimpleNamespace(
        config=None, hydra_context=SimpleNamespace(config_loader=SimpleNamespace(
            load_sweep_config=load))
    )  # fmt: skip
    job = ["backend=torch", "model=mlp", "cpus=1", "backend.allocator=retain"]
    (_, looked_up) = decide_sweep.floor_target(sweeper, job, design)
    assert looked_up == cached[0]
