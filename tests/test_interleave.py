"""A sweep's repeats run round by round, frameworks side by side, the first one rotating."""

from __future__ import annotations

import json
import re

from twinbench.launch.interleave import Job, interleave
from twinbench.launch.repeats import pair_id

from .conftest import run_cli


def jobs(repeats=3, models=("mlp", "cnn"), backends=("torch", "tensorflow")) -> list[Job]:
    # The basic sweeper's order: the first override varies slowest.
    return [Job((f"backend={b}", f"model={m}"), repeats) for b in backends for m in models]


def test_each_round_measures_every_config_once_with_its_partners_next_to_each_other():
    order = interleave(jobs())
    assert [" ".join(o) for o in order[:4]] == [
        "backend=torch model=mlp repeat_slot=0",
        "backend=tensorflow model=mlp repeat_slot=0",
        "backend=torch model=cnn repeat_slot=0",
        "backend=tensorflow model=cnn repeat_slot=0",
    ]
    assert len(order) == 12
    assert [int(o[-1].split("=")[1]) for o in order] == [0] * 4 + [1] * 4 + [2] * 4


def test_who_goes_first_in_a_pair_changes_every_round():
    firsts = [o[0] for o in interleave(jobs(repeats=4, models=("mlp",)))[::2]]
    assert firsts == ["backend=torch", "backend=tensorflow"] * 2
    three = interleave(jobs(repeats=3, models=("mlp",), backends=("a", "b", "c")))
    assert [o[0][-1] for o in three] == list("abcbcacab")


def test_auto_jobs_run_whole_in_the_first_round_and_short_ones_drop_out():
    mixed = [Job(("backend=torch",), None), Job(("backend=tensorflow",), 2)]
    assert interleave(mixed) == [
        ["backend=torch"],
        ["backend=tensorflow", "repeat_slot=0"],
        ["backend=tensorflow", "repeat_slot=1"],
    ]


def test_partners_share_a_pair_id_that_no_other_round_or_sweep_has(compose, tmp_path):
    torch, tf = compose("backend=torch"), compose("backend=tensorflow")
    assert pair_id(torch, tmp_path, 0) == pair_id(tf, tmp_path, 0)
    assert pair_id(torch, tmp_path, 0) != pair_id(torch, tmp_path, 1)
    assert pair_id(torch, tmp_path, 0) != pair_id(torch, tmp_path / "other", 0)
    cnn = compose("backend=tensorflow", "model=cnn")
    assert pair_id(torch, tmp_path, 0) != pair_id(cnn, tmp_path, 0)


def test_a_sweep_with_repeats_launches_them_interleaved_and_records_the_pairs(tmp_path):
    """Real sweep, real sweeper; each worker is stopped by a 1 ms time limit, so it costs
    process starts only: the order is what is checked, from Hydra's own launch lines."""
    proc = run_cli("-m", "backend=torch,tensorflow", "repeats=2", "cpus=1", "max_steps=2",
                   "epochs=1", "measure.peak_probe=false", "time_limit_s=0.001",
                   f"hydra.sweep.dir={tmp_path}")  # fmt: skip
    launched = re.findall(r"#\d+ : backend=(\w+) .*repeat_slot=(\d)", proc.stdout + proc.stderr)
    assert launched == [("torch", "0"), ("tensorflow", "0"), ("tensorflow", "1"), ("torch", "1")]
    records = [json.loads(p.read_text()) for p in tmp_path.rglob("repeat-*/result.json")]
    assert len(records) == 4
    by_pair: dict[str, set] = {}
    for r in records:
        by_pair.setdefault(r["pair_id"], set()).add((r["backend"], r["repeat"]))
    assert sorted(map(sorted, by_pair.values())) == [
        [("tensorflow", 0), ("torch", 0)],
        [("tensorflow", 1), ("torch", 1)],
    ]
    # Every repeat of a config gathered in one directory, with its summary once all were there.
    assert len(list(tmp_path.glob("*/summary.json"))) == 2
