"""A deciding sweep (+experiment=compare): pair by pair, each series stops once decided.

No worker runs here: a fake launcher writes the records a pair would, so the loop, the budget,
the verdict lines and decisions.json are checked in well under a second.
"""

from __future__ import annotations

import json
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from omegaconf import OmegaConf

from twinbench.launch import decide, screen
from twinbench.launch.decide_sweep import labels, pair_batches, run_deciding
from twinbench.launch.interleave import side_names
from twinbench.sequential import Design


def _record(step_s: float, cpu_s: float, status: str = "ok") -> dict[str, Any]:
    return {
        "status": status,
        "timing": {"steady_step_s": {"median": step_s}},
        "resources": {"cpu_time_training_s": cpu_s},
    }


def _jobs(series: list[str], rounds: int) -> list[list[str]]:
    """The interleaved order: round by round, each series' two frameworks side by side."""
    return [
        [f"backend={b}", s, f"repeat_slot={r}"]
        for r in range(rounds)
        for s in series
        for b in ("torch", "tensorflow")
    ]


class FakeLauncher:
    """Writes each job's result.json where the runner would, with a time per backend."""

    def __init__(self, root: Path, times: dict[tuple[str, str], list[float]]) -> None:
        self.root, self.times, self.launched = root, times, []

    def launch(self, batch: list[list[str]], initial_job_idx: int) -> list[Any]:
        out = []
        for job in batch:
            o = dict(x.split("=", 1) for x in job)
            slot, backend, series = int(o["repeat_slot"]), o["backend"], f"cpus={o['cpus']}"
            run_dir = self.root / f"{backend}_{series}"
            step = self.times[(backend, series)][slot]
            path = run_dir / f"repeat-{slot}" / "result.json"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(json.dumps(_record(step, step * 100)))
            self.launched.append(job)
            cfg = OmegaConf.create(
                {"repeats": 12, "repeat_slot": slot, "backend": {"name": backend}}
            )
            hydra_cfg = OmegaConf.create({"hydra": {"runtime": {"output_dir": str(run_dir)}}})
            out.append(SimpleNamespace(cfg=cfg, hydra_cfg=hydra_cfg))
        return out


def _sweeper(root: Path, launcher: Any, times_rounds: int, **decision: Any) -> SimpleNamespace:
    """A deciding sweep of two series, cpus=1 and cpus=2, in pairs one after the other."""
    return SimpleNamespace(
        config=OmegaConf.create({"hydra": {"sweep": {"dir": str(root)}}}),
        launcher=launcher,
        hydra_context=SimpleNamespace(config_loader=None),
        decision={"max_seconds": None, "pairing": "sequential", **decision},
        _parse_config=lambda: [],
        split_arguments=lambda _o, _m: pair_batches(_jobs(["cpus=1", "cpus=2"], times_rounds)),
        validate_batch_is_legal=lambda _b: None,
    )


@pytest.fixture(scope="module")
def swept(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """One sweep of two series: cpus=1 where torch is twice as fast (decides early), cpus=2
    where both take the same time within +-10% (cannot decide in its 12 pairs)."""
    root = tmp_path_factory.mktemp("sweep")
    wobble = [1.0, 1.1, 0.92, 1.07, 0.95, 1.09, 0.9, 1.02, 0.97, 1.1, 0.91, 1.05]
    times = {
        ("torch", "cpus=1"): [0.010 * (1 + 0.01 * (i % 3)) for i in range(12)],
        ("tensorflow", "cpus=1"): [0.020] * 12,
        ("torch", "cpus=2"): [0.010 * w for w in wobble],
        ("tensorflow", "cpus=2"): [0.010] * 12,
    }
    launcher = FakeLauncher(root, times)
    run_deciding(_sweeper(root, launcher, 12), [])
    body = json.loads((root / decide.DECISIONS_FILE).read_text())
    return {"root": root, "launched": launcher.launched, "body": body}


def test_pairs_are_cut_per_series_and_round() -> None:
    batches = pair_batches(_jobs(["cpus=1", "cpus=2"], 2))
    assert [len(b) for b in batches] == [2, 2, 2, 2]
    assert {j[1] for j in batches[1]} == {"cpus=2"}


def test_the_halves_of_a_pair_are_named_by_what_tells_them_apart() -> None:
    assert side_names([["backend=torch", "cpus=1"], ["backend=tensorflow", "cpus=1"]]) == [
        "torch",
        "tensorflow",
    ]
    one_backend = [["backend=torch", "backend.allocator=default"],
                   ["backend=torch", "+backend.allocator=retain"]]  # fmt: skip
    assert side_names(one_backend) == ["allocator=default", "allocator=retain"]


def test_series_are_named_by_what_tells_them_apart() -> None:
    keys = [("cpus=1", "model=mlp"), ("cpus=2", "model=mlp")]
    assert labels(keys) == {keys[0]: "cpus=1", keys[1]: "cpus=2"}
    # one series: its core count, which the first screen says as "1 core", never "all"
    assert labels([keys[0]]) == {keys[0]: "cpus=1"}
    assert labels([("model=mlp",)]) == {("model=mlp",): "all"}


def test_a_clear_series_stops_early_and_the_other_runs_its_budget(swept: dict[str, Any]) -> None:
    series = {s["series"]: s for s in swept["body"]["series"]}
    fast, same = series["cpus=1"], series["cpus=2"]
    assert fast["decision"]["outcome"] == "a_faster" and fast["a"] == "torch"
    assert fast["decision"]["stopped_by"] == "decided" and len(fast["wall_ratios"]) < 12
    assert same["decision"]["outcome"] == "undecided"
    assert same["decision"]["stopped_by"] == "max_pairs" and len(same["wall_ratios"]) == 12
    # The decided series' later rounds were never launched.
    launched_fast = [j for j in swept["launched"] if "cpus=1" in j]
    assert len(launched_fast) == 2 * len(fast["wall_ratios"])


def test_the_cpu_ratio_is_kept_beside_the_wall_ratio(swept: dict[str, Any]) -> None:
    fast = next(s for s in swept["body"]["series"] if s["series"] == "cpus=1")
    assert fast["cpu_ratios"] == pytest.approx(fast["wall_ratios"])
    assert swept["body"]["design"]["measure"] == "wall"


def test_the_end_of_sweep_block_states_verdict_interval_pairs_and_resolvable_margin(
    swept: dict[str, Any],
) -> None:
    text = decide.render(swept["root"])
    assert text is not None
    assert "torch faster than tensorflow by more than 5%" in text
    assert "undecided at budget (max_pairs); these pairs resolve a margin of" in text
    assert "training CPU time torch/tensorflow" in text
    assert decide.render(swept["root"] / "nowhere") is None


def test_a_failed_half_is_counted_not_divided() -> None:
    s = decide.Series("cpus=1", Design(max_pairs=3, max_seconds=None), 3)
    s.add({"torch": _record(0.01, 1.0), "tensorflow": _record(0.0, 0.0, "failed")}, 1.0)
    assert s.incomplete == 1 and s.ratios["wall"] == [] and not s.done


def test_a_series_whose_pairs_keep_failing_stops_and_the_other_still_decides(tmp_path) -> None:
    """A core count whose every run failed (a config refused at once) went on to its 40 pairs:
    80 identical failure lines before the verdicts (2026-12-06). It now stops after
    max_failed_in_a_row pairs in a row lost a half; the other core count is not held up."""
    times = {("torch", "cpus=1"): [0.010] * 12, ("tensorflow", "cpus=1"): [0.020] * 12,
             ("torch", "cpus=2"): [0.010] * 12, ("tensorflow", "cpus=2"): [0.010] * 12}  # fmt: skip

    class Refusing(FakeLauncher):
        def launch(self, batch: list[list[str]], initial_job_idx: int) -> list[Any]:
            out = super().launch(batch, initial_job_idx)
            for job, ret in zip(batch, out, strict=True):
                if "cpus=2" in job and "backend=tensorflow" in job:
                    slot = int(job[-1].split("=")[1])
                    path = Path(ret.hydra_cfg.hydra.runtime.output_dir) / f"repeat-{slot}"
                    (path / "result.json").write_text(json.dumps(_record(0, 0, "failed")))
            return out

    launcher = Refusing(tmp_path, times)
    run_deciding(_sweeper(tmp_path, launcher, 12), [])
    body = json.loads((tmp_path / decide.DECISIONS_FILE).read_text())
    by_label = {s["series"]: s for s in body["series"]}
    failing = by_label["cpus=2"]
    assert failing["incomplete"] == failing["failed_in_a_row"] == Design().max_failed_in_a_row
    assert sum("cpus=2" in job for job in launcher.launched) == 2 * Design().max_failed_in_a_row
    assert failing["decision"] is None
    assert by_label["cpus=1"]["decision"]["outcome"] == "a_faster"
    text = decide.render(tmp_path)
    assert "cpus=2: no complete pair (3 incomplete; stopped by pairs that failed in a row)" in text
    shown = screen.verdict_lines(body, 2, given=[])  # the first screen says it too
    assert "  all (2)  no complete pair (3 incomplete; stopped by pairs that failed in a row)" in (
        shown
    )


def test_pairs_failing_in_a_row_stop_a_series_with_pairs_undecided_and_no_rerun() -> None:
    """With complete pairs before them, the failures end the series undecided, saying so rather
    than 'at budget', and no rerun command is offered: more pairs would fail the same way. A
    complete pair between failures starts the count again."""
    from twinbench.launch import rerun

    s = decide.Series("cpus=1", Design(max_pairs=40, max_seconds=None), 40)
    ok = {"torch": _record(0.010, 1.0), "tensorflow": _record(0.0101, 1.0)}
    failed = {"torch": _record(0.010, 1.0), "tensorflow": _record(0.0, 0.0, "failed")}
    for pair in (ok, ok, failed, failed, ok, failed, failed):
        s.add(pair, 1.0)
    assert not s.done and s.failed_in_a_row == 2
    s.add(failed, 1.0)
    assert s.done and s.decision is not None and s.decision.stopped_by == "failed_in_a_row"
    assert "undecided stopped by pairs that failed in a row" in s.line()
    assert rerun.rerun_line(s.as_dict(), s.decision, s.design.__dict__, [], 2) is None


def test_the_seconds_budget_ends_a_series_undecided() -> None:
    s = decide.Series("cpus=1", Design(max_pairs=40, max_seconds=10), 40)
    s.add({"torch": _record(0.010, 1.0), "tensorflow": _record(0.011, 1.0)}, 6.0)
    assert not s.done
    s.add({"torch": _record(0.011, 1.0), "tensorflow": _record(0.010, 1.0)}, 6.0)
    assert s.done and s.decision is not None and s.decision.stopped_by == "max_seconds"


def test_the_noise_floor_is_stated_with_the_verdict() -> None:
    s = decide.Series("cpus=1", Design(max_pairs=2, max_seconds=None), 2, floor="noise floor: X")
    for _ in range(2):
        s.add({"torch": _record(0.010, 1.0), "tensorflow": _record(0.011, 1.0)}, 1.0)
    assert s.done and s.line().endswith("noise floor: X")
    assert s.as_dict()["noise_floor"] == "noise floor: X"


def test_the_report_section_reads_the_same_decisions(swept: dict[str, Any]) -> None:
    from analysis.render.sections import decisions

    rows = {r["series"]: r for r in decisions.rows([swept["root"]])}
    assert rows["cpus=1"]["outcome"] == "torch faster than tensorflow by more than 5%"
    assert rows["cpus=2"]["stopped_by"] == "max_pairs" and rows["cpus=2"]["pairs"] == 12
    assert rows["cpus=1"]["beside"].startswith("cpu: ")
    assert rows["cpus=1"]["noise_floor"] == "not calibrated"
    assert decisions.FILE == decide.DECISIONS_FILE


def test_a_folder_of_several_sweeps_counts_their_decisions_and_never_pools_them(
    swept: dict[str, Any], tmp_path: Path
) -> None:
    import pandas as pd

    from analysis.render import terminal
    from analysis.render.sections import decisions

    body = (swept["root"] / decide.DECISIONS_FILE).read_text()
    for name in ("2026-12-06_10-00-00", "2026-12-06_11-00-00"):  # `python -m analysis results/`
        (tmp_path / "sweeps" / name).mkdir(parents=True)
        (tmp_path / "sweeps" / name / decisions.FILE).write_text(body)
    # the runs of the later sweep (their sweep: analysis/load/records.py sweep_of): its
    # workload, and the cores its cpus=2 runs had
    later = tmp_path / "sweeps" / "2026-12-06_11-00-00"
    runs = pd.DataFrame([{"sweep": str(later), "cpus": 2, "workload": "mlp"}])
    found = decisions.rows([tmp_path], runs)
    assert sorted({r["sweep"] for r in found}) == ["2026-12-06_10-00-00", "2026-12-06_11-00-00"]
    assert {r["cores"] for r in found if r["workloads"] == "mlp"} == {"1 core", "all (2)"}
    an = SimpleNamespace(options=SimpleNamespace(inputs=[tmp_path]), runs=pd.DataFrame())
    lines = terminal.decided_lines(an, printed_below=False)
    assert lines[1].startswith("  1 core: torch / tensorflow in 2 sweeps, ratios 0.5")
    assert "torch faster 2" in lines[1] and "latest, 2026-12-06_11-00-00: " in lines[2]
    assert "undecided 2" in lines[3]
    # a decisions.json cut short (a full disk) is left out and named, never a traceback
    cut = tmp_path / "sweeps" / "2026-12-06_12-00-00" / decisions.FILE
    cut.parent.mkdir()
    cut.write_text(body[: len(body) // 2])
    assert len(decisions.rows([tmp_path])) == len(found)
    (note,) = decisions.unreadable([tmp_path])
    assert note.startswith(str(cut.resolve())) and "not a readable decisions file" in note


def test_a_sweep_resumed_from_a_decisions_file_cut_short_is_refused_in_one_line(
    swept: dict[str, Any], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = (swept["root"] / decide.DECISIONS_FILE).read_text()
    (tmp_path / decide.DECISIONS_FILE).write_text(body[:100])
    tracker = decide.Tracker(Design(**json.loads(body)["design"]), lambda _: None)
    tracker.open(("cpus=1",), "cpus=1", 12)
    with pytest.raises(ValueError, match=r"cannot be resumed from .*move it aside"):
        tracker.resume(tmp_path)
    # and the file is written whole or not at all: a disk that fills mid-write leaves the
    # last whole file and no temporary one beside it
    tracker.write(tmp_path)
    whole = (tmp_path / decide.DECISIONS_FILE).read_text()
    real_write = Path.write_text

    def disk_full(path: Path, text: str, *args: Any, **kwargs: Any) -> int:
        real_write(path, text[:50], *args, **kwargs)
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(Path, "write_text", disk_full)
    with pytest.raises(OSError, match="No space"):
        tracker.write(tmp_path)
    monkeypatch.undo()
    assert [p.name for p in tmp_path.iterdir()] == [decide.DECISIONS_FILE]
    assert (tmp_path / decide.DECISIONS_FILE).read_text() == whole


def test_shared_seconds_go_to_the_series_still_undecided() -> None:
    # cpus=1 decides after 5 clear pairs; cpus=2 (a coin flip) keeps going on the seconds
    # cpus=1 left, then ends with "total_seconds": a per-series 60 s would have stopped it at 6.
    said: list[str] = []
    t = decide.Tracker(Design(max_pairs=40, max_seconds=None, total_seconds=150), said.append)
    clear, flip = t.open(("cpus=1",), "cpus=1", 40), t.open(("cpus=2",), "cpus=2", 40)
    for i in range(5):
        t.add(("cpus=1",), {"torch": _record(0.010, 1), "tensorflow": _record(0.020, 1)}, 10.0)
        t.add(
            ("cpus=2",),
            {"torch": _record(0.010 + 0.002 * (i % 2), 1), "tensorflow": _record(0.011, 1)},
            10.0,
        )
    assert clear.done and clear.decision.outcome == "a_faster"
    while not flip.done:
        t.add(
            ("cpus=2",),
            {
                "torch": _record(0.010 + 0.002 * (len(flip.ratios["wall"]) % 2), 1),
                "tensorflow": _record(0.011, 1),
            },
            10.0,
        )
    assert flip.seconds == 100.0 and len(flip.ratios["wall"]) == 10
    assert flip.decision is not None and flip.decision.stopped_by == "total_seconds"
    assert "undecided at budget (total_seconds)" in said[-1]
    assert flip.as_dict()["pool_spent"] is True


def test_a_pair_longer_than_the_seconds_left_is_not_started() -> None:
    """Pairs of 100 s against 250 s shared: a third would end at 300 s, past the budget the plan
    line promised, so the series ends after two; one of 10 s beside it runs on into the 50 s."""
    t = decide.Tracker(Design(max_pairs=40, max_seconds=None, total_seconds=250), lambda _: None)
    slow, quick = t.open(("cpus=1",), "cpus=1", 40), t.open(("cpus=2",), "cpus=2", 40)
    coin = {"torch": _record(0.010, 1), "tensorflow": _record(0.0101, 1)}
    for _ in range(2):
        t.add(("cpus=1",), coin, 100.0)
    assert slow.done and slow.decision.stopped_by == "total_seconds"
    assert len(slow.ratios["wall"]) == 2 and not quick.done
    while not quick.done:  # a coin flip between 0.91x and 1.09x: never decided in 5 pairs
        step = 0.010 + 0.002 * (len(quick.ratios["wall"]) % 2)
        t.add(("cpus=2",), {"torch": _record(step, 1), "tensorflow": _record(0.011, 1)}, 10.0)
    assert quick.seconds == 50.0 and quick.decision.stopped_by == "total_seconds"


def test_without_shared_seconds_each_series_keeps_only_its_own() -> None:
    t = decide.Tracker(Design(max_pairs=40, max_seconds=60), lambda _: None)
    s = t.open(("cpus=2",), "cpus=2", 40)
    while not s.done:  # a coin flip between 0.91x and 1.09x: never decided in six pairs
        step = 0.010 + 0.002 * (len(s.ratios["wall"]) % 2)
        t.add(("cpus=2",), {"torch": _record(step, 1), "tensorflow": _record(0.011, 1)}, 10.0)
    assert s.decision.stopped_by == "max_seconds" and s.seconds == 60.0


def test_pairs_that_take_turns_go_through_run_in_turns_not_the_launcher(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`pairing: turns` (the default) runs each pair's two jobs together (launch/turns.py)."""
    from twinbench.launch import decide_sweep

    together: list[list[list[str]]] = []

    def fake_turns(
        sweeper: Any, batch: list[list[str]], index: int, design: Any, sides: list[str]
    ) -> dict:
        together.append(batch)
        return {"torch": _record(0.010, 1.0), "tensorflow": _record(0.020, 2.0)}

    monkeypatch.setattr(decide_sweep, "run_in_turns", fake_turns)
    launcher = FakeLauncher(tmp_path, {})
    sweeper = SimpleNamespace(
        config=OmegaConf.create({"hydra": {"sweep": {"dir": str(tmp_path)}}}),
        launcher=launcher,
        hydra_context=SimpleNamespace(config_loader=None),
        decision={"max_seconds": None},
        _parse_config=lambda: [],
        split_arguments=lambda _o, _m: pair_batches(_jobs(["cpus=1"], 12)),
        validate_batch_is_legal=lambda _b: None,
    )
    run_deciding(sweeper, [])
    assert launcher.launched == [] and together
    assert all(
        {j[0] for j in batch} == {"backend=torch", "backend=tensorflow"} for batch in together
    )
    body = json.loads((tmp_path / decide.DECISIONS_FILE).read_text())
    assert body["design"]["pairing"] == "turns"
    assert "fresh-process pairs in turns" in (decide.render(tmp_path) or "")
    # every verdict names its design and what it leaves out (issue 40)
    assert body["described"]["name"] == "fresh-process pairs in turns"
    assert "record holds its start-up" in body["series"][0]["design"]["leaves_out"]


def test_a_pair_waits_for_the_machine_before_its_seconds_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second sweep beside a first waited for the measurement lock inside its pair's clock:
    the wait was spent from its seconds, so a sweep started behind another ran out of budget
    before it measured (2026-12-06). The sweep now takes the lock before the clock starts."""
    import multiprocessing
    import threading

    from twinbench.launch import decide_sweep, machine_lock

    from .test_machine_lock import _start_holder

    key = str(tmp_path / "lock")
    held_s = 1.5
    holder, release = _start_holder(multiprocessing.get_context("spawn"), key)
    threading.Timer(held_s, release.set).start()
    jobs = pair_batches(_jobs(["cpus=1"], 2))

    def pair_in_turns(*_: Any) -> dict[str, Any]:
        with machine_lock.measurement_lock(key):  # as together.run_halves takes it
            return {"torch": _record(0.010, 1.0), "tensorflow": _record(0.020, 2.0)}

    monkeypatch.setattr(decide_sweep, "run_in_turns", pair_in_turns)
    sweeper = SimpleNamespace(
        config=OmegaConf.create({"hydra": {"sweep": {"dir": str(tmp_path)}},
                                 "measure": {"lock_file": key}, "allow_parallel": False}),
        launcher=None,
        hydra_context=SimpleNamespace(config_loader=None),
        decision={"max_seconds": None, "pairing": "turns"},
        _parse_config=lambda: [],
        split_arguments=lambda _o, _m: jobs,
        validate_batch_is_legal=lambda _b: None,
    )  # fmt: skip
    started = time.monotonic()
    run_deciding(sweeper, [])
    assert time.monotonic() - started >= held_s  # it did wait for the holder
    holder.join(30)
    (series,) = json.loads((tmp_path / decide.DECISIONS_FILE).read_text())["series"]
    assert series["seconds"] < held_s / 2  # and none of the wait is the pairs'


def test_a_resumed_sweep_goes_on_from_the_pairs_it_had_counted(tmp_path, capsys) -> None:
    """Re-running an interrupted deciding sweep in its folder measured every pair again, and
    with resident pairs each finished pair came back as a failed one (its blocks live only in
    the sweep): the series restarted from nothing. It now restores decisions.json's pairs and
    measures from the next slot on."""
    from twinbench.launch import lifeline

    wobble = [1.0, 1.1, 0.92, 1.07, 0.95, 1.09, 0.9, 1.02, 0.97, 1.1, 0.91, 1.05]
    times = {(b, c): [0.010 * w for w in wobble] if b == "torch" else [0.010] * 12
             for b in ("torch", "tensorflow") for c in ("cpus=1", "cpus=2")}  # fmt: skip

    class Stopped(FakeLauncher):  # Ctrl-C after the sixth pair
        def launch(self, batch: list[list[str]], initial_job_idx: int) -> list[Any]:
            if len(self.launched) == 12:
                raise lifeline.Interrupted(2)
            return super().launch(batch, initial_job_idx)

    with pytest.raises(lifeline.Interrupted):
        run_deciding(_sweeper(tmp_path, Stopped(tmp_path, times), 12), [])
    before = {
        s["series"]: s for s in json.loads((tmp_path / decide.DECISIONS_FILE).read_text())["series"]
    }
    assert [len(s["wall_ratios"]) for s in before.values()] == [3, 3]
    again = FakeLauncher(tmp_path, times)
    run_deciding(_sweeper(tmp_path, again, 12, max_failed_in_a_row=5), [])  # a stopping rule
    assert "decide: resumed from" in capsys.readouterr().out
    slots = sorted({int(job[-1].split("=")[1]) for job in again.launched})
    assert slots[0] == 3  # the first three rounds were not measured again
    after = {
        s["series"]: s for s in json.loads((tmp_path / decide.DECISIONS_FILE).read_text())["series"]
    }
    for label, s in after.items():
        assert s["wall_ratios"][:3] == before[label]["wall_ratios"]
        assert len(s["wall_ratios"]) + s["incomplete"] == 12
    # Another design's pairs are not mixed in: one line, exit 2, nothing measured.
    other = FakeLauncher(tmp_path, times)
    with pytest.raises(SystemExit) as exit_:
        run_deciding(_sweeper(tmp_path, other, 12, margin=0.1), [])
    assert exit_.value.code == 2 and other.launched == []
    assert (
        "holds the pairs of another decision design (differs in margin)" in capsys.readouterr().err
    )


def test_a_pair_measured_together_never_reuses_a_half(tmp_path, monkeypatch) -> None:
    """A half found finished on its own (a run stopped before its pair was counted) cannot share
    its seconds with a partner measured now: both halves of a pair in turns are measured."""
    from twinbench.launch import decide_sweep, together

    seen: list[list[tuple[dict, Path]]] = []
    monkeypatch.setattr(decide_sweep, "compose_pair", lambda _s, batch, _i: [
        ({"backend": {"name": j[0].split("=")[1]}}, tmp_path / j[0]) for j in batch])  # fmt: skip
    monkeypatch.setattr(together, "run_together", lambda jobs, *_: seen.append(jobs) or [[], []])
    batch = [["backend=torch"], ["backend=tensorflow"]]
    decide_sweep.run_in_turns(None, batch, 0, Design(), ["torch", "tensorflow"])
    assert [body["force"] for body, _ in seen[0]] == [True, True]


@pytest.mark.parametrize("backends", [("torch",), ("torch", "tensorflow", "keras_jax")])
def test_a_sweep_without_exactly_two_backends_is_refused_before_any_job(
    tmp_path, capsys, backends
) -> None:
    """`+experiment=compare backend=torch` ran each lone run as a pair missing its half until
    max_failed_in_a_row stopped it, then exited 0 saying "no complete pair"."""
    launcher = FakeLauncher(tmp_path, {})
    sweeper = _sweeper(tmp_path, launcher, 3)
    jobs = [[f"backend={b}", "cpus=1", f"repeat_slot={r}"] for r in range(3) for b in backends]
    sweeper.split_arguments = lambda _o, _m: pair_batches(jobs)
    with pytest.raises(SystemExit) as exit_:
        run_deciding(sweeper, [])
    assert exit_.value.code == 2 and launcher.launched == []
    err = capsys.readouterr().err
    assert "a deciding sweep compares two sides a pair (two backends, or two values of a " in err
    assert f"this one gives {len(backends)} (backend=" in err


def test_the_reports_verdict_leads_with_the_decisions(
    swept: dict[str, Any], tmp_path: Path
) -> None:
    # As on the terminal: a deciding sweep's decisions are the verdict (their intervals hold at
    # every look); the runs' own intervals follow, said to decide nothing. The report used to open
    # with the runs' intervals alone, which could call a core count undecided that its decision
    # called faster, or the reverse.
    from analysis.compute import pipeline
    from analysis.load.table import runs_table
    from analysis.render import report

    from . import test_analysis_fakes as fakes

    # the sweep's decisions beside records of its runs (the fake launcher's are not records)
    root = tmp_path / "sweep"
    times = {(b, c): [[0.5 if b == "torch" else 1.0]] * 3 for b in ("torch", "tensorflow")
             for c in (1, 2)}  # fmt: skip
    fakes.sweep(root, times)
    (root / decide.DECISIONS_FILE).write_text(json.dumps(swept["body"]))
    an = pipeline.analyze(runs_table([root]), pipeline.Options(inputs=[root]))
    page = report.write(an, tmp_path / "out").read_text()
    verdict = page[page.index('id="verdict"') : page.index('id="decisions"')]
    assert "The sequential decisions (each interval holds at every look" in verdict
    decided = verdict.index("1 core: torch / tensorflow")
    assert "torch faster than tensorflow by more than 5%" in verdict[decided:]
    assert decided < verdict.index("The runs' own intervals, beside the decisions above")
