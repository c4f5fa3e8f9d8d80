"""The speed benchmarks' machinery: interleaving, paired ratios, verdicts, ports, before/after."""

from __future__ import annotations

import json
import math
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks import before_after, outside, pairs, rounds, table
from twinbench import sequential
from twinbench.paths import REPO_ROOT

PORTS = REPO_ROOT / "benchmarks" / "ports"


def test_pairs_alternate_which_side_runs_first():
    calls: list[str] = []

    def side(name, seconds):
        def measure():
            calls.append(name)
            return pairs.Sample(epoch_s=seconds, cpu_s=2 * seconds)

        return measure

    measured = pairs.interleave(side("a", 1.0), side("b", 2.0), 4, lambda s: None)
    assert calls == ["a", "b", "b", "a", "a", "b", "b", "a"]
    assert all(a.epoch_s == 1.0 and b.epoch_s == 2.0 for a, b in measured)


def test_summary_is_the_median_of_the_pairs_ratios_with_the_exact_interval():
    a = [1.00, 1.10, 0.90, 1.05, 0.95, 1.00]
    b = [1.00, 1.00, 1.00, 1.00, 1.00, 1.00]
    s = pairs.summarise(
        [(pairs.Sample(x, 3.0), pairs.Sample(y, 2.0)) for x, y in zip(a, b, strict=True)]
    )
    assert s["ratio"]["median"] == pytest.approx(1.0)
    assert (s["ratio"]["ci_low"], s["ratio"]["ci_high"]) == (0.9, 1.1)  # n = 6: [min, max]
    assert s["ratio"]["confidence"] == pytest.approx(1 - 2 / 64)
    assert s["cpu_ratio"]["median"] == 1.5
    assert s["verdict"].startswith("undecided")


@pytest.mark.parametrize(
    ("ratios", "verdict"),
    [
        ([1.03, 1.04, 1.05, 1.04, 1.06, 1.05], "SLOWER"),  # all beyond 1/0.98 = 1.0204
        ([0.97, 0.99, 1.00, 1.01, 0.98, 1.02], "meets the goal"),
        ([0.95, 1.00, 1.05, 1.02, 0.99, 1.01], "undecided"),
        ([1.5], "one pair"),
        ([1.05, 1.06, 1.07], "undecided: 3 pairs give only a 75% interval"),
    ],
)
def test_verdict_is_decided_only_beyond_the_interval(ratios, verdict):
    from twinbench import stats

    assert pairs.verdict(stats.paired_ratio(ratios, [1.0] * len(ratios))).startswith(verdict)


def test_the_outside_side_runs_under_the_lock_twinbench_runs_take(monkeypatch):
    """Other twinbench runs on a shared machine wait for the outside or bare process too, as
    they wait for twinbench's side of the pair."""
    import contextlib

    held = []

    @contextlib.contextmanager
    def lock(key):
        held.append(key)
        yield

    monkeypatch.setattr(pairs, "measurement_lock", lock)
    monkeypatch.setattr(pairs, "run_process", lambda cmd, env=None: ('{"epoch_s": [1]}\n', 0.5))
    assert pairs.json_line_process(["x"]) == ({"epoch_s": [1]}, 0.5)
    assert held == [pairs.measurement_lock_key()] and held[0].endswith("twinbench-measure.lock")


def test_first_epoch_is_left_out():
    assert pairs.steady([9.0, 1.0, 3.0, 2.0]) == 2.0
    with pytest.raises(ValueError, match="at least 2"):
        pairs.steady([1.0])


def test_every_workload_has_outside_code_on_both_backends_that_lists_its_changes():
    assert set(outside.SETTINGS["keras_scripts"]) == set(outside.MODELS)
    for model, script in outside.SETTINGS["keras_scripts"].items():
        text = (PORTS / f"{script}.py").read_text()
        assert "Changes from the published script" in text or model == "tl_mlp", script
        assert "Changes from the tutorial" in text or model != "tl_mlp", script
        assert f'harness.arrays("{model}", b)' in text, script
    for model in outside.MODELS:
        script = outside.SETTINGS["torch_scripts"].get(model, "torch_examples")
        assert f"benchmarks.ports.{script}" in outside.outside_cmd("torch", model, 1, 2, None)
        assert outside.outside_cmd("tensorflow", model, 1, 2, None) is not None
    for model, script in outside.SETTINGS["torch_scripts"].items():  # gpt: nanoGPT's loop
        text = (PORTS / f"{script}.py").read_text()
        assert "Changes, each one demanded" in text and f'harness.arrays("{model}", b)' in text


def test_the_outside_side_skips_validation_exactly_where_the_workload_does():
    """Read from conf `validate: false`: the text generators' 2017 scripts and nanoGPT run
    none inside an epoch, so twinbench is timed on training alone there."""
    assert {"charlstm", "textgen", "gpt"} == outside.NO_VALIDATION


def test_tl_mlp_is_compared_with_the_outside_loop_doing_the_same_work():
    """pytorch/examples' loop trains on all 60,000 images and tests every epoch: twinbench's
    side of the comparison drops tl_mlp's TensorLayer split and validation cadence."""
    from twinbench.config import checks as cli

    overrides = outside.SETTINGS["twinbench_overrides"]["tl_mlp"]
    assert set(overrides) == {"model.hold_out_for_validation=null", "model.validate_every=1"}
    cli.validate_overrides(["model=tl_mlp", *overrides])  # valid: would exit 2 otherwise


def run_port(*args: str) -> dict:
    cmd = [sys.executable, "-m", *args, "--cpus", "1", "--max-steps", "2", "--epochs", "2"]
    out = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    return json.loads(out.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize(
    ("script", "validates"),
    [(["torch_examples", "mlp"], True), (["nanogpt_train"], False)],  # nanogpt_train: gpt
    ids=["torch_examples", "nanogpt_train"],
)
def test_the_torch_loops_train_and_report_epoch_times(script, validates):
    result = run_port(f"benchmarks.ports.{script[0]}", *script[1:])
    assert len(result["epoch_s"]) == 2 and all(t > 0 for t in result["epoch_s"])
    assert result["validates"] is validates


def test_nanogpt_loop_sets_twinbench_learning_rates_and_decays_the_same_weights():
    """nanoGPT's get_lr and configure_optimizers, written as its users do, land on twinbench's
    schedule (optimizer_formula) and its AdamW's decayed group: the same optimizer work."""
    from torch import nn

    from benchmarks.ports import nanogpt_train
    from frameworks import optimizer_formula
    from frameworks.torch_native.optimizers import adamw
    from models.catalog import model_config
    from models.gpt import torch_model

    cfg = model_config("gpt")
    opt = cfg["optimizer"]
    end = opt["warmup_steps"] + opt["cosine_steps"]
    for t in (0, 1, opt["warmup_steps"] - 1, opt["warmup_steps"], end // 2, end, end + 1):
        expected = optimizer_formula.learning_rate(opt, t)
        assert nanogpt_train.get_lr(t, opt) == pytest.approx(expected), t
    model = torch_model(**{**cfg["arch"], "chars": 57})
    tables = frozenset(id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding))
    ours = adamw(model.parameters(), opt, False, tables).param_groups
    theirs = nanogpt_train.configure_optimizers(model, opt).param_groups
    for a, b in zip(ours, theirs, strict=True):
        assert {id(p) for p in a["params"]} == {id(p) for p in b["params"]}
        assert a["weight_decay"] == b["weight_decay"]


@pytest.mark.parametrize("script", ["keras_mnist_mlp", "keras_tensorlayer_mnist_mlp"])
def test_a_ported_keras_script_trains_and_reports_epoch_times(script):
    result = run_port(f"benchmarks.ports.{script}")
    assert len(result["epoch_s"]) == 2 and result["validates"]


def test_before_after_exports_a_commit_and_refuses_an_unknown_ref(tmp_path):
    commit = before_after.export("HEAD", tmp_path)
    assert len(commit) == 40 and (tmp_path / "run.py").exists()
    assert (tmp_path / "twinbench" / "launch" / "runner.py").exists()
    with pytest.raises(SystemExit, match="not a commit"):
        before_after.export("no-such-ref-anywhere", Path(tmp_path / "x"))


class FakeClock:
    """Each process 'runs' `seconds` on this clock (a pair: twice that)."""

    def __init__(self) -> None:
        self.t = 0.0

    def side(self, seconds: float, epoch_s: float | list[float] = 1.0):
        """A side whose processes take `epoch_s` a steady epoch (a list: one after another)."""
        times = iter(epoch_s) if isinstance(epoch_s, list) else None

        def measure():
            self.t += seconds
            return pairs.Sample(epoch_s=next(times) if times else epoch_s, cpu_s=1.0)

        return measure


# Pair ratios spread by +-30%: no decision in a handful of pairs, as fresh processes here.
UNDECIDED = [1.0, 1.3, 0.7, 1.25, 0.75, 1.3, 0.7, 1.2, 0.8, 1.3, 0.7, 1.25]


def table_of(clock: FakeClock, rows: int, seconds: float = 30.0) -> list[rounds.Row]:
    return [
        rounds.Row(f"row{i}", clock.side(seconds, list(UNDECIDED)), clock.side(seconds), {"row": i})
        for i in range(rows)
    ]


def test_without_a_budget_every_row_runs_its_pairs_and_the_length_is_estimated_after_a_round():
    clock, said = FakeClock(), []
    # a row three times as dear as the others: the first row's pair does not tell the round
    dear = rounds.Row("dear", clock.side(90.0, list(UNDECIDED)), clock.side(90.0), {"row": 2})
    rows = [*table_of(clock, 2), dear]
    results = rounds.run_table(rows, 4, None, said.append, now=lambda: clock.t)
    assert [r["pairs"] for r in results] == [4, 4, 4] and not any(r["trimmed"] for r in results)
    estimates = [s for s in said if "estimate" in s]
    assert estimates == [
        "  estimate: the first round (one pair of each of the 3 rows) took 5.0 min; 4 rounds "
        "would take about 20 min at most (a row stops once decided)"
    ]
    assert said.index("dear") < said.index(estimates[0]) < said.index("row0 (round 2)")


def test_the_estimate_warns_when_a_budget_leaves_rows_without_an_interval():
    design = sequential.load_design(max_seconds=None)
    need = design.first_interval_pairs  # 5 with conf/decision/default.yaml
    short = rounds.estimate(480.0, 10, 12, 35, design)  # rounds of 8 min, 35 min: 4 rounds
    assert short.endswith(
        f"allows about 4 rounds, fewer than the {need} pairs a row needs for an interval: "
        f"give about {need * 8} min, or fewer rows"
    )
    enough = rounds.estimate(480.0, 10, 12, 55, design)
    assert enough.endswith("the budget (55 min) allows about 6 rounds")
    assert "fewer than" not in rounds.estimate(480.0, 10, 3, 30, design)  # 3 asked, 3 fit


def test_the_first_interval_comes_where_the_confidence_sequence_first_is_finite():
    design = sequential.load_design(max_seconds=None)
    n = design.first_interval_pairs
    _, high = sequential.running_bounds([0.01, -0.02, 0.03, 0.0, 0.01, -0.01][: n + 1], design)
    assert all(map(math.isinf, high[0][: n - 1])) and math.isfinite(high[0][n - 1])


def test_a_budget_trims_pairs_so_the_table_fits_and_says_what_it_trimmed():
    clock, said = FakeClock(), []
    # 8 rows x 6 pairs of 60 s = 48 min asked; 16 min allowed: 2 pairs a row.
    results = rounds.run_table(table_of(clock, 8), 6, 16, said.append, now=lambda: clock.t)
    assert [r["pairs"] for r in results] == [2] * 8
    assert all(r["trimmed"] and r["pairs_requested"] == 6 for r in results)
    assert all(r["decision"]["stopped_by"] == "max_seconds" for r in results)
    assert clock.t <= 16 * 60
    assert sum("budget spent, stops at 2 of 6 pairs" in s for s in said) == 8


def test_a_budget_runs_rows_in_rounds_so_no_row_is_starved_by_the_rows_before_it():
    """Rows of different costs under a budget for about five pairs each: every row reaches the
    five pairs a confidence sequence needs for an interval, none runs a sixth before the others
    have five; the rows took turns pair by pair, so the last row's pairs are spread over the
    whole budget rather than crowded into its end."""
    clock, order = FakeClock(), []

    def side(name: str, seconds: float):
        measure = clock.side(seconds, list(UNDECIDED))

        def run():
            order.append(name)
            return measure()

        return run

    costs = {"cheap": 5, "dear": 40, "middling": 20}
    rows = [rounds.Row(n, side(n, c), clock.side(c), {"row": n}) for n, c in costs.items()]
    # One round costs 2 x (5 + 40 + 20) = 130 s; 11 min leave five rounds and part of a sixth.
    results = rounds.run_table(rows, 12, 11, lambda s: None, now=lambda: clock.t)
    counts = {r["row"]: r["pairs"] for r in results}
    assert min(counts.values()) >= 5, counts
    assert order[:6] == ["cheap", "dear", "middling"] * 2
    assert counts["cheap"] > counts["dear"]  # the time a dear pair cannot use goes to cheap ones
    assert all(r["decision"]["stopped_by"] == "max_seconds" for r in results)
    assert clock.t <= 11 * 60


def test_a_table_hands_over_every_rows_pairs_so_far_after_each_pair(tmp_path):
    """--out is rewritten after every pair (an interrupted table keeps what it measured), rows
    still measuring marked as running; the file is replaced whole, never left half-written."""
    clock, snapshots = FakeClock(), []
    out = tmp_path / "table.json"

    def progress(so_far):
        rounds.write_out(out, 2, so_far)
        snapshots.append(json.loads(out.read_text())["results"])

    results = rounds.run_table(
        table_of(clock, 2), 3, None, lambda s: None, now=lambda: clock.t, progress=progress
    )
    assert [[r["pairs"] for r in snap] for snap in snapshots] == [
        [1], [1, 1], [2, 1], [2, 2], [3, 2], [3, 3]
    ]  # fmt: skip
    assert [r["running"] for r in snapshots[2]] == [True, True]
    assert [r["running"] for r in snapshots[-1]] == [False, False]
    assert [r["running"] for r in results] == [False, False]
    assert not list(tmp_path.glob("*.partial"))
    assert "still running" in table.decided_cell(snapshots[2][0], "60 steps")


def test_a_budget_gives_time_a_short_row_leaves_to_the_rows_after_it():
    clock = FakeClock()
    rows = [
        rounds.Row("fast", clock.side(5, list(UNDECIDED)), clock.side(5), {}),
        *table_of(clock, 1),
    ]
    results = rounds.run_table(rows, 6, 5, lambda s: None, now=lambda: clock.t)
    # In rounds of 70 s: four of both, then the 20 s left fit two more 10 s pairs of fast only.
    assert [r["pairs"] for r in results] == [6, 4]


def test_a_row_stops_at_the_pair_that_decides_and_says_what_ended_it():
    """Twinbench steadily 20% faster (+-1%): decided well before the 12 pairs asked for, and
    the record says so; the same row without an effect but as steady ends equivalent."""
    clock = FakeClock()
    faster = [0.8, 0.81, 0.79, 0.8, 0.805, 0.795, 0.8, 0.81, 0.79, 0.8, 0.8, 0.8]
    same = [1.0, 1.01, 0.99, 1.0, 1.005, 0.995, 1.0, 1.01, 0.99, 1.0, 1.0, 1.0]
    rows = [
        rounds.Row("faster", clock.side(5, faster), clock.side(5), {}),
        rounds.Row("same", clock.side(5, same), clock.side(5), {}),
        rounds.Row("noisy", clock.side(5, list(UNDECIDED)), clock.side(5), {}),
    ]
    results = rounds.run_table(rows, 12, None, lambda s: None, now=lambda: clock.t)
    outcomes = [(r["decision"]["outcome"], r["decision"]["stopped_by"]) for r in results]
    assert outcomes == [
        ("a_faster", "decided"), ("equivalent", "decided"), ("undecided", "max_pairs")
    ]  # fmt: skip
    assert results[0]["pairs"] < 12 and results[1]["pairs"] < 12 and results[2]["pairs"] == 12
    # Stopped at the first deciding pair: one pair fewer would not have decided.
    first = results[0]["pairs"]
    fewer = pairs.sequential.decide_sequence(faster[: first - 1], pairs.sequential.load_design())
    assert fewer.outcome == "undecided"


def test_a_row_in_turns_measures_its_pairs_through_the_turn_taking_pair():
    calls = []

    def in_turns(i: int):
        calls.append(i)
        return pairs.Sample(0.9, 1.0), pairs.Sample(1.0, 1.0)

    def never():
        raise AssertionError("a row in turns never runs its sides one after the other")

    row = rounds.Row("turns", never, never, {}, in_turns)
    (result,) = rounds.run_table([row], 3, None, lambda s: None)
    assert calls == [0, 1, 2] and result["pairing"] == "turns"


def test_a_resident_row_counts_worker_pairs_and_says_its_design():
    def unit(i: int):  # seconds per training step, as turn_pairs.measure_resident_pair gives
        return pairs.Sample(0.009, 0.009), pairs.Sample(0.010, 0.010)

    def never():
        raise AssertionError("a resident row never runs its sides one after the other")

    said: list[str] = []
    row = rounds.Row("resident", never, never, {}, unit, "resident")
    (result,) = rounds.run_table([row], 2, None, said.append)
    assert result["pairing"] == "resident" and result["pairs"] == 2
    assert "    worker pair 1/2 (resident): 9.00 ms vs 10.00 ms a step = 0.900" in said
    assert "timed CPU ratio" in pairs.line("resident", result)
    shown = table.cell(
        {**result, **rounds.resident_meta(sequential.Design(resident_blocks=12, turn_ticks=5))}
    )
    assert shown.endswith("(2 resident worker pairs, 12 blocks of 5 steps a side, per step)")
    retained = table.cell(
        {**result, **rounds.resident_meta(sequential.Design()), "allocator": "retain"}
    )
    assert retained.endswith("a side, per step, both sides under the retain allocator)")


def test_resident_tables_size_their_worker_pairs_per_model_and_refuse_blocks_without_them(
    capsys,
):
    from benchmarks import overhead

    p = rounds.arguments("", outside.MODELS, outside.MODELS, 6, 3)
    args = rounds.parse(p, ["--pairing", "resident", "--blocks", "20", "gpt=4"])
    designs = rounds.resident_designs(p, args, sequential.load_design(), outside.MODELS)
    assert designs["gpt"].resident_blocks == 4 and designs["mlp"].resident_blocks == 20
    assert {d.pairing for d in designs.values()} == {"resident"}
    conf = sequential.Design(resident_blocks=7)
    no_blocks = rounds.parse(p, ["--pairing", "resident", "--models", "cnn"])
    default = rounds.resident_designs(p, no_blocks, conf, outside.MODELS)
    assert list(default) == ["cnn"] and default["cnn"].resident_blocks == 7
    for main, bad in (
        (outside.main, ["--blocks", "8"]),  # blocks without resident pairs
        (overhead.main, ["--pairing", "resident", "--blocks", "gpt=0"]),
    ):
        with pytest.raises(SystemExit) as e:
            main([*bad, "--pairing", "turns"] if "--pairing" not in bad else bad)
        assert e.value.code == 2
    err = capsys.readouterr().err
    assert "--blocks sizes resident worker pairs" in err and "--blocks gpt=0" in err


def test_a_row_always_runs_at_least_one_pair():
    clock = FakeClock()
    results = rounds.run_table(table_of(clock, 2, 600), 6, 1, lambda s: None, now=lambda: clock.t)
    assert [r["pairs"] for r in results] == [1, 1]


def test_the_tables_cap_steps_for_every_model_or_one_and_refuse_what_is_not_a_cap():
    caps = rounds.step_caps(["60", "fasttext=6", "gpt=20"], outside.MODELS)
    assert caps == {"*": 60, "fasttext": 6, "gpt": 20}
    assert rounds.step_caps([], outside.MODELS) == {}
    for bad in (["nosuchmodel=5"], ["gpt=0"], ["gpt=x"], ["-3"]):
        with pytest.raises(ValueError, match="--max-steps"):
            rounds.step_caps(bad, outside.MODELS)


def test_outside_and_overhead_share_the_command_line_and_refuse_bad_values(capsys, tmp_path):
    from benchmarks import overhead

    blocker = tmp_path / "a-file"
    blocker.write_text("")
    for main in (outside.main, overhead.main):
        for bad in (["--epochs", "1"], ["--budget-minutes", "0"], ["--pairs", "0"],
                    ["--out", str(blocker / "t.json")], ["--out", str(tmp_path)]):  # fmt: skip
            with pytest.raises(SystemExit) as e:
                main(bad)
            assert e.value.code == 2
    err = capsys.readouterr().err
    assert (
        "--budget-minutes must be a positive number" in err and "--epochs must be at least 2" in err
    )
    # a table writes its --out after every round: one it cannot write is refused up front
    assert f"--out's folder {blocker} is a file, not a directory" in err
    assert f"--out {tmp_path} is a directory" in err


def measured_row(model: str, ratios: list[float], steps: int = 30) -> dict:
    """A row as outside.py --out writes it, with pairs at the given time ratios."""
    from benchmarks import pairs

    samples = [(pairs.Sample(r, 2.0, [3.0, r, r]), pairs.Sample(1.0, 1.0, [2.0, 1.0, 1.0]))
               for r in ratios]  # fmt: skip
    return {"model": model, "backend": "torch", "max_steps": steps, "trimmed": False,
            **pairs.summarise(samples)}  # fmt: skip


def test_the_speed_table_comes_from_the_files_and_says_what_is_missing(tmp_path):
    from benchmarks import table

    one = tmp_path / "one.json"
    one.write_text(
        json.dumps({"results": [measured_row("cnn", [0.90, 0.91, 0.92, 0.93, 0.94, 0.95])]})
    )
    text = table.table(table.rows_of([one]), {})
    assert "| cnn | torch | 0.925 [0.900, 0.950], meets the goal (6 pairs, 30 steps) |" in text
    assert "| mlp | torch | not measured | not measured |" in text
    assert len(text.splitlines()) == 2 + 2 * len(outside.MODELS)
    with pytest.raises(SystemExit, match="not a file written by --out"):
        table.rows_of([tmp_path / "missing.json"])


def test_a_row_measured_twice_pools_every_pair_instead_of_keeping_one_run(tmp_path):
    from benchmarks import table

    slow, fast = tmp_path / "slow.json", tmp_path / "fast.json"
    slow.write_text(json.dumps({"results": [measured_row("cnn", [1.5, 1.6, 1.4, 1.5, 1.5, 1.6])]}))
    fast.write_text(json.dumps({"results": [measured_row("cnn", [0.9] * 6 + [1.0] * 2)]}))
    row = table.rows_of([slow, fast])["cnn", "torch"]
    assert row["pairs"] == 14 and row["runs"] == 2
    assert row["ratio"]["median"] == pytest.approx(1.0)  # neither run's own median
    assert "(14 pairs from 2 runs, 30 steps)" in table.cell(row)
    other_length = tmp_path / "long.json"
    other_length.write_text(json.dumps({"results": [measured_row("cnn", [1.0] * 6, steps=60)]}))
    with pytest.raises(SystemExit, match="different lengths"):
        table.rows_of([slow, other_length])


def test_a_row_of_the_sequential_engine_shows_its_decision_and_is_never_pooled(tmp_path):
    from benchmarks import table

    faster = [0.8, 0.81, 0.79, 0.8, 0.805, 0.795, 0.8]
    row = {**measured_row("cnn", faster), "pairing": "turns"}
    text = table.cell(row)
    assert text.startswith("0.80") and "twinbench faster by more than 5%" in text
    assert text.endswith(f"({row['decision']['pairs']} pairs in turns, 30 steps)")
    slower = table.cell({**measured_row("cnn", [1.2, 1.21, 1.19, 1.2, 1.2, 1.2]), "pairing": "x"})
    assert "SLOWER by more than 5%" in slower
    noisy = table.cell({**measured_row("cnn", [1.0, 1.3, 0.7]), "pairing": "turns"})
    assert "undecided at its budget (max_pairs; resolves" in noisy
    one, two = tmp_path / "one.json", tmp_path / "two.json"
    for path in (one, two):
        path.write_text(json.dumps({"results": [row]}))
    with pytest.raises(SystemExit, match="give one file per row"):
        table.rows_of([one, two])


def test_a_tables_wait_for_another_run_is_spent_from_neither_a_row_nor_the_budget(tmp_path):
    """A pair in turns waited for the measurement lock inside its clock: a table started behind
    another run counted the wait as its row's seconds and its budget's, and stopped rows early.
    The pair now takes the lock before its clock, and the deadline moves by the wait."""
    import multiprocessing
    import threading

    from twinbench.launch import machine_lock

    from .test_machine_lock import _start_holder

    key = str(tmp_path / "lock")
    holder, release = _start_holder(multiprocessing.get_context("spawn"), key)
    threading.Timer(1.5, release.set).start()

    def in_turns(i: int) -> tuple[pairs.Sample, pairs.Sample]:
        with machine_lock.measurement_lock(key):  # as together.run_halves takes it
            return pairs.Sample(epoch_s=1.0 + 0.3 * (-1) ** i, cpu_s=1.0), pairs.Sample(1.0, 1.0)

    row = rounds.Row("row", lambda: None, lambda: None, {}, in_turns, "turns")  # type: ignore[arg-type]
    results = rounds.run_table([row], 4, 0.02, lambda s: None, lock=key)  # a 1.2 s budget
    holder.join(30)
    assert results[0]["pairs"] == 4 and not results[0]["trimmed"]


# What glibc itself answers in the other side's process (frameworks/allocator.py's read-back).
ASK_GLIBC = [sys.executable, "-c", "from frameworks import allocator as a; "
             "print(a.large_block_mapped())"]  # fmt: skip


@pytest.mark.parametrize("mode, mapped", [("default", "True"), ("retain", "False")])
def test_the_other_side_runs_under_the_allocator_twinbench_is_set_to(mode, mapped):
    """A table under `retain` compares two loops with neither process' page-fault state in the
    ratio: only if the script's process really runs under it, as glibc answers from inside it.
    Under the default the command is the one the tables always ran, and twinbench gets no
    override."""
    cmd = pairs.under_allocator(ASK_GLIBC, mode)
    out = subprocess.run(cmd, cwd=REPO_ROOT, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == mapped
    assert (cmd == ASK_GLIBC) == (mode == "default")
    expected = () if mode == "default" else (f"backend.allocator={mode}",)
    from frameworks import allocator

    assert allocator.overrides(mode) == expected


@pytest.mark.parametrize("pairing", ["resident", "turns", "sequential"])
@pytest.mark.parametrize("table_main", ["outside", "overhead"])
def test_allocator_reaches_both_sides_of_every_row_and_the_rows_file(
    table_main, pairing, monkeypatch
):
    """Every pairing builds both sides' commands in its own closure: each must carry the mode."""
    from benchmarks import overhead, turn_pairs
    from frameworks import allocator

    main = {"outside": outside.main, "overhead": overhead.main}[table_main]
    sides: list[tuple[list[str], list[str]]] = []  # (twinbench's overrides, the script's command)
    sample = pairs.Sample(0.01, 0.01, [0.01, 0.01])

    def resident_pair(overrides, script_cmd, twinbench_first, design):
        sides.append((overrides, script_cmd(7)))
        return sample, sample

    def pair_in_turns(overrides, cmd, *args, **kwargs):
        sides.append((overrides, cmd))
        return sample, sample

    ours: list[list[str]] = []
    monkeypatch.setattr(turn_pairs, "measure_resident_pair", resident_pair)
    monkeypatch.setattr(turn_pairs, "measure_pair", pair_in_turns)
    monkeypatch.setattr(pairs, "twinbench", lambda *a, overrides=(), **k: ours.append(overrides))

    def script_alone(cmd):  # pairs.json_line_process: the script's JSON line and CPU seconds
        sides.append((ours[-1], cmd))
        return {"epoch_s": [1.0, 1.0]}, 1.0

    monkeypatch.setattr(pairs, "json_line_process", script_alone)
    rows: list[rounds.Row] = []

    def run_table(found, *args, **kwargs):
        rows.extend(found)
        if found[0].in_turns is not None:
            found[0].in_turns(0)
        else:  # sequential: each side alone, twinbench's first
            found[0].a()
            found[0].b()
        return []

    monkeypatch.setattr(rounds, "run_table", run_table)
    monkeypatch.setattr(rounds, "write_out", lambda *a: None)
    main(["--pairing", pairing, "--models", "mlp", "--backends", "torch",
          "--allocator", "retain"])  # fmt: skip
    ((overrides, script),) = sides
    assert "backend.allocator=retain" in overrides
    assert script[0] == "env" and set(script[1:3]) == {
        f"{k}={v}" for k, v in allocator.environment("retain").items()
    }
    assert rows[0].meta["allocator"] == "retain"
