"""Resident worker pairs (decision `pairing: resident`): a worker pair is one unit.

Checked without a worker: how blocks make a unit (twinbench/launch/resident.py), that a resident
deciding sweep feeds units to the tracker and names its design, the A/A campaign's bookkeeping,
and the design's validity in the simulation that runs the sweep's own code
(twinbench/launch/resident_power.py). One slow test runs a real tiny resident deciding sweep.
"""

from __future__ import annotations

import dataclasses
import json
import math
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from omegaconf import OmegaConf

from twinbench.launch import decide, decide_sweep, resident, resident_power, screen
from twinbench.launch.decide_sweep import pair_batches, run_deciding
from twinbench.launch.resident import size_job, unit_of
from twinbench.launch.turns import Block
from twinbench.sequential import Design, first_decisions

DESIGN = Design(pairing="resident", turn_ticks=5, resident_blocks=4, warmup_ticks=10)


def _blocks(seconds: list[float], ticks: int = 5, warmup: float | None = 9.0) -> list[Block]:
    first = [] if warmup is None else [Block(warmup, warmup, 10, True)]
    return first + [Block(s, s / 2, ticks, False) for s in seconds]


# ---------------------------------------------------------------- blocks to a unit


def test_a_unit_is_the_mean_log_ratio_of_its_rounds_warm_up_left_out() -> None:
    unit = unit_of(_blocks([1.0, 2.0, 1.0, 2.0]), _blocks([2.0, 2.0, 2.0, 2.0]), DESIGN)
    assert unit is not None and unit.rounds == 4
    # rounds 0.5, 1, 0.5, 1: the geometric mean, not the ratio of sums (1.5/2 = 0.75)
    assert unit.ratios["wall"] == pytest.approx(math.sqrt(0.5))
    assert unit.ratios["cpu"] == pytest.approx(math.sqrt(0.5))


def test_a_unit_counts_at_most_its_designs_blocks_and_only_whole_rounds() -> None:
    a = [*_blocks([1.0, 1.0, 1.0]), Block(0.1, 0.1, 2, False), Block(9.0, 9.0, 5, False)]
    b = _blocks([2.0, 2.0, 2.0, 2.0, 2.0])
    unit = unit_of(a, b, DESIGN)  # round 4 is partial on A's side, round 5 past the 4 blocks
    assert unit is not None and unit.rounds == 3 and unit.ratios["wall"] == pytest.approx(0.5)


def test_blocks_are_compared_per_training_step() -> None:
    """A Keras tick may be 10 steps (steps_per_execution): a block of 5 ticks is then 50."""
    unit = unit_of(_blocks([10.0]), _blocks([1.0]), DESIGN, per_tick=(10, 1))
    assert unit is not None and unit.ratios["wall"] == pytest.approx(1.0)


def test_a_unit_keeps_each_sides_seconds_per_step_whose_ratio_is_the_units() -> None:
    """The speed tables print each side's seconds per step beside the ratio: the geometric mean
    over the unit's rounds, so that the two sides' figures divide to the unit's ratio (an
    arithmetic mean, 1.5 and 2.0 here, would say 0.75 where the unit says 0.707)."""
    unit = unit_of(_blocks([5.0, 10.0, 5.0, 10.0]), _blocks([20.0] * 4), DESIGN, per_tick=(1, 2))
    assert unit is not None
    assert unit.a_step_s["wall"] == pytest.approx(math.sqrt(50.0) / 5)  # 1 and 2 s a step
    assert unit.b_step_s["wall"] == pytest.approx(2.0)  # 20 s for 5 ticks of 2 steps
    assert unit.a_step_s["cpu"] == pytest.approx(unit.a_step_s["wall"] / 2)
    for m in ("wall", "cpu"):
        assert unit.a_step_s[m] / unit.b_step_s[m] == pytest.approx(unit.ratios[m])


def test_a_worker_that_died_before_its_first_compared_block_gives_no_unit() -> None:
    assert unit_of(_blocks([]), _blocks([1.0, 1.0]), DESIGN) is None


def test_a_worker_pair_with_a_failed_half_is_dropped_whole() -> None:
    """A worker that died mid-block: the rounds before it still pair, but the pair is dropped."""
    blocks = [_blocks([1.0] * 4), _blocks([2.0] * 2)]
    ok, failed = [{"status": "ok"}], [{"status": "failed", "error": "killed"}]
    assert resident.unit_from(resident.ResidentPair([ok, failed], blocks, (1, 1)), DESIGN) is None
    assert resident.unit_from(resident.ResidentPair([ok, []], blocks, (1, 1)), DESIGN) is None
    whole = resident.unit_from(resident.ResidentPair([ok, ok], blocks, (1, 1)), DESIGN)
    assert whole is not None and whole.ratios["wall"] == pytest.approx(0.5)
    flipped = resident.unit_from(resident.ResidentPair([ok, ok], blocks, (1, 1)), DESIGN, True)
    assert flipped is not None and flipped.ratios["wall"] == pytest.approx(2.0)


def test_a_resident_worker_trains_one_warm_up_and_its_blocks_in_one_epoch() -> None:
    body = {"epochs": 2, "max_steps": 100, "backend": {"name": "tensorflow"}}
    assert size_job(body, DESIGN) | {"backend": None} == {
        "epochs": 1, "max_steps": 10 + 4 * 5, "backend": None,
    }  # fmt: skip
    keras = {"epochs": 2, "backend": {"steps_per_execution": 10}}
    assert size_job(keras, DESIGN)["max_steps"] == (10 + 4 * 5) * 10


def test_a_resident_noise_floor_is_keyed_by_the_worker_pairs_length_not_the_runs() -> None:
    """twinbench calibrate --pairing resident (default --epochs 2, no --max-steps) caches the
    floor a resident README command 1 (epochs 2, max_steps 100) reads: both the design's."""
    assert resident.floor_length(DESIGN, 2, None) == resident.floor_length(DESIGN, 2, 100)
    assert resident.floor_length(DESIGN, 2, 100) == (1, 10 + 4 * 5)
    turns = dataclasses.replace(DESIGN, pairing="turns")
    assert resident.floor_length(turns, 2, 100) == (2, 100)  # fresh runs: their own length


# ---------------------------------------------------------------- validity, simulated


def test_under_a_a_the_resident_design_rarely_calls_a_side_faster() -> None:
    """Workers with their own lifelong state (0.05 in log speed, more than this machine's 0.02)
    and block noise; 40 units a sequence, looked at after every unit: the false-decision rate
    stays at most alpha."""
    m, _ = resident_power.load_model()
    m = dataclasses.replace(m, process_sd=0.05, budget_s=1e9)
    design = dataclasses.replace(DESIGN, resident_blocks=10, max_pairs=40)
    r = resident_power.rates(0.0, design, m, sequences=300, seed=1)
    assert r["a_faster"] + r["b_faster"] <= design.alpha, r
    assert r["mean_units"] > 30  # most sequences looked 40 times: a real test of the level


def test_blocks_counted_as_independent_observations_would_break_the_level() -> None:
    """Why the worker pair is the unit: the same A/A blocks, every block a look, decide wrongly
    far more often than alpha, because a worker pair's state is shared by all its blocks (40, as
    conf/decision/default.yaml's resident_blocks)."""
    rng = np.random.default_rng(2)
    sequences, units, k, process_sd, block_sd = 300, 10, 40, 0.05, 0.12
    states = rng.normal(0, process_sd, (sequences, units, 2))
    noise = rng.normal(0, block_sd, (sequences, units, k, 2))
    logs = (states[:, :, None, 0] + noise[..., 0]) - (states[:, :, None, 1] + noise[..., 1])
    per_block = logs.reshape(sequences, units * k)
    outcome, _ = first_decisions(per_block, DESIGN)
    wrong = np.isin(outcome, (0, 1)).mean()
    assert wrong > 2 * DESIGN.alpha, wrong
    outcome, _ = first_decisions(logs.mean(axis=2), DESIGN)  # the unit: a worker pair's mean
    assert np.isin(outcome, (0, 1)).mean() <= DESIGN.alpha


def test_a_ten_percent_effect_is_found_and_never_reversed() -> None:
    m, _ = resident_power.load_model()
    m = dataclasses.replace(m, budget_s=1e9)
    design = dataclasses.replace(DESIGN, resident_blocks=10, max_pairs=20)
    r = resident_power.rates(0.10, design, m, sequences=100, seed=3)
    assert r["a_faster"] >= 0.5 and r["b_faster"] == 0.0, r


def test_the_power_script_prints_a_row_per_blocks_and_effect(capsys, tmp_path) -> None:
    out = tmp_path / "rows.json"
    assert resident_power.main(["--sequences", "5", "--blocks", "3", "--json", str(out)]) == 0
    rows = json.loads(out.read_text())["rows"]
    assert [(r["resident_blocks"], r["effect"]) for r in rows] == [(3, 0.0), (3, 0.05), (3, 0.1)]
    assert "A faster" in capsys.readouterr().out
    # a measured machine, and the effect a real comparison showed, from the command line
    measured = [
        "--process-sd",
        "0.053",
        "--startup-s",
        "7",
        "--effects",
        "0.075",
        "--max-pairs",
        "4",
    ]
    assert resident_power.main(["--sequences", "5", "--blocks", "3", *measured,
                                "--json", str(out)]) == 0  # fmt: skip
    written = json.loads(out.read_text())
    assert written["machine"]["process_sd"] == 0.053 and written["machine"]["startup_s"] == 7.0
    assert written["machine"]["block_sd"] == resident_power.load_model()[0].block_sd
    assert [r["effect"] for r in written["rows"]] == [0.075]
    assert 2 <= written["rows"][0]["mean_units"] <= 4  # --max-pairs caps a series' units


# ---------------------------------------------------------------- the sweep


def _sweeper(root: Path, jobs: list[list[str]]) -> SimpleNamespace:
    return SimpleNamespace(
        config=OmegaConf.create({"hydra": {"sweep": {"dir": str(root)}}}),
        launcher=SimpleNamespace(launch=None),
        hydra_context=SimpleNamespace(config_loader=None),
        decision={"max_seconds": None, "pairing": "resident", "resident_blocks": 4},
        _parse_config=lambda: [],
        split_arguments=lambda _o, _m: pair_batches(jobs),
        validate_batch_is_legal=lambda _b: None,
    )


def test_a_resident_sweep_decides_on_worker_pair_units_and_names_its_design(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Each batch runs as one resident worker pair; its unit, oriented torch/tensorflow whichever
    started first, goes to the tracker; decisions.json and the verdict name the design."""
    jobs = [[f"backend={b}", "cpus=1", f"repeat_slot={r}"]
            for r in range(12) for b in (("torch", "tensorflow") if r % 2 else
                                         ("tensorflow", "torch"))]  # fmt: skip

    def compose(_sweeper: Any, batch: list[list[str]], index: int) -> list[tuple[dict, Path]]:
        names = [job[0].split("=")[1] for job in batch]
        return [({"backend": {"name": n}}, tmp_path / f"{index}-{n}") for n in names]

    def run_pair(pair: list[tuple[dict, Path]], design: Design) -> resident.ResidentPair:
        seconds = {"torch": 1.0, "tensorflow": 2.0}  # torch twice as fast, in every round
        blocks = [_blocks([seconds[b["backend"]["name"]]] * 4) for b, _ in pair]
        ok = {"status": "ok", "backend": "x"}
        return resident.ResidentPair([[ok], [ok]], blocks, (1, 1))

    monkeypatch.setattr(decide_sweep, "compose_pair", compose)
    monkeypatch.setattr(resident, "run_pair", run_pair)
    monkeypatch.setattr("twinbench.launch.runner.summary", lambda r: "summary")
    run_deciding(_sweeper(tmp_path, jobs), [])
    body = json.loads((tmp_path / decide.DECISIONS_FILE).read_text())
    (series,) = body["series"]
    assert (series["a"], series["b"]) == ("torch", "tensorflow")
    assert series["wall_ratios"] and all(r == pytest.approx(0.5) for r in series["wall_ratios"])
    assert series["rounds"] == [4] * len(series["wall_ratios"])
    assert series["decision"]["outcome"] == "a_faster"
    assert series["design"]["name"] == "resident worker pairs in turns"
    assert "start-up" in series["design"]["leaves_out"]
    assert "worker pair" in series["design"]["unit"]
    lines = screen.verdict_lines(body, 2)
    assert (
        "worker pairs, resident worker pairs in turns (start-up and import not seen)" in (lines[-1])
    )


def test_a_sweep_of_one_backend_at_two_settings_keeps_each_setting_on_its_side(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`backend=torch backend.allocator=default,retain`: both halves are torch, so the sides are
    the setting's values. Named by the backend alone, the two had one name and each unit took
    whichever half started first as A: its ratios alternated 2.0 and 0.5 (2026-12-07)."""
    jobs = [["backend=torch", f"backend.allocator={m}", "cpus=1", f"repeat_slot={r}"]
            for r in range(12) for m in (("default", "retain") if r % 2 else
                                         ("retain", "default"))]  # fmt: skip

    def compose(_sweeper: Any, batch: list[list[str]], index: int) -> list[tuple[dict, Path]]:
        modes = [job[1].split("=")[1] for job in batch]
        return [({"backend": {"name": "torch", "allocator": m}}, tmp_path / f"{index}-{m}")
                for m in modes]  # fmt: skip

    def run_pair(pair: list[tuple[dict, Path]], design: Design) -> resident.ResidentPair:
        seconds = {"default": 2.0, "retain": 1.0}  # retain twice as fast, in every round
        blocks = [_blocks([seconds[b["backend"]["allocator"]]] * 4) for b, _ in pair]
        ok = {"status": "ok", "backend": "torch"}
        return resident.ResidentPair([[ok], [ok]], blocks, (1, 1))

    monkeypatch.setattr(decide_sweep, "compose_pair", compose)
    monkeypatch.setattr(resident, "run_pair", run_pair)
    monkeypatch.setattr("twinbench.launch.runner.summary", lambda r: "summary")
    run_deciding(_sweeper(tmp_path, jobs), [])
    (series,) = json.loads((tmp_path / decide.DECISIONS_FILE).read_text())["series"]
    assert (series["a"], series["b"]) == ("allocator=default", "allocator=retain")
    assert series["wall_ratios"] and all(r == pytest.approx(2.0) for r in series["wall_ratios"])
    assert series["decision"]["outcome"] == "b_faster"
    body = json.loads((tmp_path / decide.DECISIONS_FILE).read_text())
    assert screen.verdict_lines(body, 2)[0].startswith(
        "setting: allocator=default / allocator=retain, wall time"
    )


def test_a_worker_pair_without_a_whole_round_is_dropped_and_said() -> None:
    s = decide.Series("cpus=1", DESIGN, 3)
    s.add_unit(["torch", "tensorflow"], None, 0, 5.0)
    s.add_unit(["torch", "tensorflow"], {"wall": 0.5, "cpu": 0.5}, 4, 5.0)
    s.add_unit(["torch", "tensorflow"], {"wall": 0.6, "cpu": 0.5}, 4, 5.0)
    assert s.incomplete == 1 and s.ratios["wall"] == [0.5, 0.6] and s.seconds == 15.0
    assert s.done and s.decision.stopped_by == "max_pairs"
    assert "1 pair(s) with a failed half left out" in s.line()
    assert "design: resident worker pairs in turns" in s.line()


def test_the_design_line_says_how_long_a_worker_pair_lives() -> None:
    line = screen.design_line(DESIGN.__dict__, 16)
    assert "design: resident worker pairs in turns of 5 steps, 4 blocks a worker pair" in line


# ---------------------------------------------------------------- the A/A campaign


def test_calibrate_keeps_a_over_b_whichever_half_started_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """calibrate alternates which half starts first (in_start_order); its unit stays A/B."""
    from twinbench.cli import calibrate

    def jobs(_args: Any, folder: Path, i: int) -> list[tuple[dict, Path]]:
        return [({"half": h}, folder / f"pair-{i}-{h}") for h in ("a", "b")]

    def run_pair(pair: list[tuple[dict, Path]], design: Design) -> resident.ResidentPair:
        seconds = {"a": 2.0, "b": 1.0}  # A's half twice as slow, wherever it ran
        blocks = [_blocks([seconds[body["half"]]] * 4) for body, _ in pair]
        return resident.ResidentPair([[{"status": "ok"}]] * 2, blocks, (1, 1))

    monkeypatch.setattr(calibrate, "_jobs", jobs)
    monkeypatch.setattr(resident, "run_pair", run_pair)
    for i in (0, 1):
        unit = calibrate.resident_unit(SimpleNamespace(), tmp_path, DESIGN, i)
        assert unit is not None and unit.ratios["wall"] == pytest.approx(2.0), i


# ---------------------------------------------------------------- the real thing


@pytest.mark.slow
def test_a_real_resident_deciding_sweep_compares_blocks_of_one_worker_pair(
    tmp_path: Path,
) -> None:
    from tests.conftest import run_cli
    from tests.test_turns import tiny_deciding_sweep

    proc = run_cli(
        *tiny_deciding_sweep(
            tmp_path,
            "hydra.sweeper.decision.pairing=resident",
            "+hydra.sweeper.decision.resident_blocks=4",
            "+hydra.sweeper.decision.warmup_ticks=2",
        )
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert "design: resident worker pairs in turns of 3 steps, 4 blocks a worker pair" in (
        proc.stdout
    )
    records = [json.loads(p.read_text()) for p in sorted(tmp_path.rglob("result.json"))]
    assert len(records) == 2 and all(r["status"] == "ok" for r in records)
    for r in records:  # one epoch: the warm-up turn and 4 blocks, each its own turn
        assert r["steps_per_epoch"] == 2 + 4 * 3 and len(r["epoch_times_s"]) == 1
        assert r["turns"]["turns"] >= 5
    body = json.loads((tmp_path / "sweep" / "decisions.json").read_text())
    (series,) = body["series"]
    assert series["rounds"] == [4] and len(series["wall_ratios"]) == 1
    assert body["described"]["name"] == "resident worker pairs in turns"
