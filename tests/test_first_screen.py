"""README command 1's first screen (twinbench/launch/screen.py): at most screen.MAX_LINES lines by
default, and no line that names a faster side for a core count its decision left undecided.

No framework runs: a whole deciding sweep goes through run_deciding and the sweep's end with the
pairs' records made here (the 2026-12-02 compare-3 numbers: 1 core decided TensorFlow faster,
all cores undecided near 1.07), each run's real summary block emitted as a sweep emits it. The
screen is what a console would show: stdout and the console log handler, in order.
"""

from __future__ import annotations

import io
import json
import logging
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from omegaconf import OmegaConf

from twinbench.cli import sweep_end
from twinbench.launch import decide, decide_sweep, hardware_effect, rerun, screen, together
from twinbench.machine import cpu
from twinbench.parity import certificates
from twinbench.paths import CONF_DIR
from twinbench.sequential import Design, decide_sequence
from twinbench.ui import progress
from twinbench.ui.cores import cores_label

from . import test_analysis_fakes as fakes

PLAN = (
    "plan: up to 64 run(s), 0 already finished; each core count stops as soon as its pairs "
    "decide, and the pairs stop within 5m30s in all (all 64 would take 24m33s, from 243 earlier "
    "record(s) on this machine)"
)
# steady-step seconds per pair: 1 core torch / TensorFlow about 1.45 (decides at once), all
# cores about 1.07 with a wobble (undecided in its 16 pairs, its interval above 1)
WOBBLE = [
    1.0,
    1.06,
    0.95,
    1.05,
    0.96,
    1.04,
    0.94,
    1.07,
    1.0,
    1.05,
    0.95,
    1.06,
    0.97,
    1.0,
    1.03,
    0.98,
]
TIMES = {
    ("torch", "1"): [0.00775 * (1 + 0.01 * (i % 3)) for i in range(16)],
    ("tensorflow", "1"): [0.00535] * 16,
    ("torch", "null"): [0.00600 * w for w in WOBBLE],
    ("tensorflow", "null"): [0.00561] * 16,
}


def _record(backend: str, cores: str, slot: int) -> dict[str, Any]:
    """A finished run as result.json holds it, with what runner.summary prints."""
    step = TIMES[(backend, cores)][slot]
    n = 2 if cores == "null" else 1
    r = fakes.record(backend, n, [step * 100, step * 100], repeat=slot, repeats=16)
    r["config"]["cpus"] = None if cores == "null" else n
    r["affinity"] = list(range(n))
    r["timing"] = {
        "epoch_s": {"median": step * 100, "n": 2},
        "steady_step_s": {"median": step, "ci_low": step * 0.99, "ci_high": step * 1.01,
                          "confidence": 0.96, "n": 189, "unstable": False},
        "steady_samples_per_s": 128 / step,
        "drift": {"ratio_last_to_first_third": 1.0, "drifting": False},
    }  # fmt: skip
    r["startup"] = {"total_s": 8.0, "framework_import_s": 2.5, "first_step_s": 0.03}
    r["resources"] = {"cpu_time_training_s": step * 190}
    return r


def _jobs(rounds: int) -> list[list[str]]:
    return [
        [f"backend={b}", f"cpus={c}", f"repeat_slot={r}"]
        for r in range(rounds)
        for c in ("1", "null")
        for b in ("torch", "tensorflow")
    ]


def _sweep(root: Path, monkeypatch: pytest.MonkeyPatch, verbose: bool) -> str:
    """README command 1 from its plan to its footer, on fabricated pairs; returns the screen."""
    out = io.StringIO()
    console = logging.StreamHandler(out)  # Hydra's console handler, as the sweep has it
    console.setFormatter(logging.Formatter("%(message)s"))
    monkeypatch.setattr(logging.getLogger(), "handlers", [console])
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr(cpu, "allowed_cpus", lambda: [0, 1])
    monkeypatch.setattr(screen, "current", None)
    monkeypatch.setattr(progress, "screen_quiet", False)

    def compose(_sweeper: Any, batch: list[list[str]], _index: int) -> list[tuple[Any, Path]]:
        jobs = []
        for job in batch:
            o = dict(x.split("=", 1) for x in job)
            run_dir = root / f"backend={o['backend']},cpus={o['cpus']}"
            jobs.append(({**o, "backend": {"name": o["backend"]}}, run_dir))
        return jobs

    def run_pair(jobs: list[tuple[Any, Path]], _ticks: int, _gap: float) -> list[list[dict]]:
        halves = []
        for body, run_dir in jobs:
            slot = int(body["repeat_slot"])
            record = _record(body["backend"]["name"], body["cpus"], slot)
            fakes.write(run_dir, f"repeat-{slot}", record)
            halves.append([record])
        return halves

    monkeypatch.setattr(decide_sweep, "compose_pair", compose)
    monkeypatch.setattr(together, "run_together", run_pair)
    monkeypatch.setattr(certificates, "status", lambda model: {
        "status": "pass", "checked": "2026-12-02T07:13:00+00:00",
        "command": f"python -m twinbench.parity {model}"})  # fmt: skip
    config = OmegaConf.create(
        {
            "hydra": {
                "sweep": {"dir": str(root)},
                "sweeper": {"decide": True},
                "overrides": {"task": ["+experiment=compare"]},  # README command 1's
            },
            "certify": True,
            "verbose": verbose,
        }
    )
    sweeper = SimpleNamespace(
        config=config,
        launcher=None,
        hydra_context=SimpleNamespace(config_loader=None),
        decision={"max_seconds": None, "total_seconds": 330, "pairing": "turns", "turn_ticks": 5},
        _parse_config=lambda: [],
        split_arguments=lambda _o, _m: decide_sweep.pair_batches(_jobs(16)),
        validate_batch_is_legal=lambda _b: None,
    )

    def report(sweep_dir: Path, wanted: bool = True) -> bool:  # test_sweep_end: the real one
        print(f"report: {sweep_dir / 'report.html'}", flush=True)
        return True

    monkeypatch.setattr(sweep_end, "write_report", report)
    monkeypatch.setattr(sweep_end, "comparison_table", _old_framework_table)
    root_logger, level = logging.getLogger(), logging.getLogger().level
    root_logger.setLevel(logging.INFO)  # as Hydra's logging sets it
    try:
        print(PLAN, flush=True)  # on_multirun_start's line (planner.announce)
        decide_sweep.run_deciding(sweeper, [])
        assert not sweep_end.SweepSummary._summarize(root, config)
    finally:
        root_logger.setLevel(level)
    return out.getvalue()


def _old_framework_table(found: list, decided_below: bool = False) -> str:
    """What the side-by-side tables said of these runs on 2026-12-02 (analysis.render.terminal,
    here without pandas): a framework effect table with a faster side on every row."""
    return "\n".join(
        [
            "framework effect: torch / each other backend's training time (below 1: torch faster)",
            "mlp       AMD EPYC x2  cpu1   tensorflow  1.925  1.933  0.98x  [0.96, 1.00]  "
            "undecided (interval includes 1)",
            "mlp       AMD EPYC x2  cpu2   tensorflow  1.441  2.214  0.65x  [0.62, 0.70]  "
            "torch faster (unstable: wide interval)",
        ]
    )


def default_verbose() -> bool:
    """`verbose` as README command 1 has it: conf/config.yaml, unless the experiment sets it."""
    base = OmegaConf.load(CONF_DIR / "config.yaml")
    experiment = OmegaConf.load(CONF_DIR / "experiment" / "compare.yaml")
    return bool(experiment.get("verbose", base.get("verbose")))


@pytest.fixture(scope="module")
def shown(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    root = tmp_path_factory.mktemp("compare")
    with pytest.MonkeyPatch.context() as mp:
        text = _sweep(root, mp, verbose=default_verbose())
    body = json.loads((root / decide.DECISIONS_FILE).read_text())
    return {"text": text, "body": body, "root": root}


def _decided(body: dict[str, Any]) -> list[str]:
    return [
        cores_label(s["series"], 2)
        for s in body["series"]
        if s["decision"] and s["decision"]["outcome"] != "undecided"
    ]


def test_the_fabricated_sweep_decides_one_core_and_leaves_all_cores_undecided(shown) -> None:
    outcomes = {s["series"]: s["decision"]["outcome"] for s in shown["body"]["series"]}
    assert outcomes == {"cpus=1": "b_faster", "cpus=null": "undecided"}


def test_the_first_screen_holds_to_its_length(shown) -> None:
    lines = shown["text"].splitlines()
    assert len(lines) <= screen.MAX_LINES, shown["text"]
    # and holds what a newcomer needs: plan, design, progress, both core counts, hardware,
    # certificate, report
    text = shown["text"]
    for needed in (
        "plan: ",
        "design: fresh-process pairs in turns",
        "measuring: ",
        "  1 core ",
        "  all (2) ",
        "hardware: 1 core to all (2)",
        "certificate: mlp: pass",
        "report: ",
    ):
        assert needed in text, needed
    assert "cpus=null" not in text and "null" not in text
    assert "steady step  " not in text  # no per-run block


def test_no_line_names_a_faster_side_without_a_decision(shown) -> None:
    assert screen.direction_problems(shown["text"], _decided(shown["body"])) == []
    # the decided core count does say it, and the undecided one says only what its interval
    # shows, in the decision's own words
    one = next(x for x in shown["text"].splitlines() if x.startswith("  1 core "))
    assert "tensorflow faster than torch by more than 5%" in one
    every = next(x for x in shown["text"].splitlines() if x.startswith("  all (2) "))
    assert every.strip().startswith("all (2)  undecided at budget")


def test_an_undecided_core_count_says_the_command_that_would_decide_it(shown) -> None:
    """Its decision projects the pairs that would likely decide it; the screen turns them into
    one sweep of that core count alone, with the pairs and the seconds (at this sweep's seconds
    a pair) to reach them. The decided core count has no such line."""
    series = next(s for s in shown["body"]["series"] if s["series"] == "cpus=null")
    need, pairs = series["decision"]["pairs_to_decide"], series["decision"]["pairs"]
    assert need is not None and need > pairs
    hints = [x.strip() for x in shown["text"].splitlines() if "to decide it alone" in x]
    assert len(hints) == 1
    repeats = -(-need // 10) * 10
    seconds = -(-need * series["seconds"] / pairs // 60) * 60
    assert hints[0].startswith(f"to decide it alone (about {need} pairs at ")
    assert hints[0].endswith(
        f"python run.py +experiment=compare cpus=2 repeats={repeats} "
        f"++hydra.sweeper.decision.max_pairs={repeats} "
        f"++hydra.sweeper.decision.total_seconds={seconds:.0f}"
    )


def test_the_command_keeps_the_users_own_keys_and_replaces_what_it_sets() -> None:
    design = Design(max_pairs=40, max_seconds=300, total_seconds=330)
    undecided = decide_sequence([1.06, 1.09, 1.02, 1.08, 1.03, 1.07, 1.04], design, "max_seconds")
    assert undecided.pairs_to_decide is not None
    series = {"series": "cpus=1", "seconds": 70.0}
    given = ["+experiment=compare", "model=cnn", "cpus=1,null", "repeats=12",
             "hydra.sweeper.decision.total_seconds=100"]  # fmt: skip
    line = rerun.rerun_line(series, undecided, design.__dict__, given, 2)
    assert line is not None
    command = line.split(": python run.py ", 1)[1].split()
    assert command[:3] == ["+experiment=compare", "model=cnn", "cpus=1"]
    assert "++hydra.sweeper.decision.max_seconds=null" in command  # 300 s would cut it short
    assert not any(o.startswith(("repeats=12", "cpus=1,", "hydra.")) for o in command)
    # nothing to project: no command
    flat = decide_sequence([1.3, 0.7], design, "max_seconds")
    assert rerun.rerun_line(series, flat, design.__dict__, given, 2) is None


def test_a_directional_table_on_the_first_screen_fails_the_check(shown) -> None:
    planted = shown["text"] + "\n" + _old_framework_table([])
    bad = screen.direction_problems(planted, _decided(shown["body"]))
    assert bad and all("cpu2" in line or "below 1" in line for line in bad)


def _one_series(ratios: list[float], series: str, **design: Any) -> dict[str, Any]:
    """decisions.json's body for one core count of torch / tensorflow whose pairs gave `ratios`,
    ended by the shared seconds."""
    d = Design(max_pairs=16, total_seconds=330, **design)
    decision = decide_sequence(ratios, d, "total_seconds")
    return {
        "design": d.__dict__,
        "series": [{"series": series, "a": "torch", "b": "tensorflow", "incomplete": 0,
                    "decision": decision.as_dict()}],
    }  # fmt: skip


def test_an_undecided_core_count_called_faster_fails_the_check() -> None:
    body = _one_series([1.06, 1.09, 1.04, 1.08], "cpus=null")
    honest = "\n".join(screen.verdict_lines(body, 2))
    assert screen.direction_problems(honest, []) == []
    planted = honest + "\n  all (2)  tensorflow faster 1.07x [0.97, 1.17]"
    assert screen.direction_problems(planted, []) == [
        "  all (2)  tensorflow faster 1.07x [0.97, 1.17]"
    ]


def test_one_worker_pair_is_said_in_the_singular() -> None:
    body = _one_series([2.05], "cpus=1", pairing="resident")
    text = "\n".join(screen.verdict_lines(body, 2))
    assert "1 worker pair," in text and "1 worker pairs" not in text


def test_verbose_brings_back_every_run_and_the_tables(tmp_path, monkeypatch) -> None:
    text = _sweep(tmp_path, monkeypatch, verbose=True)
    assert "steady step  " in text and "framework effect" in text
    assert len(text.splitlines()) > screen.MAX_LINES  # why it is not the default


def test_core_counts_read_as_people_say_them() -> None:
    assert cores_label("cpus=null", 2) == "all (2)"
    assert cores_label("cpus=1", 2) == "1 core"
    assert cores_label("cpus=2", 8) == "2 cores"
    assert cores_label("cpus=8", 8) == "all (8)"
    assert cores_label("model=cnn cpus=null", 4) == "model=cnn all (4)"
    assert cores_label("cpus=null", None) == "all cores"


def test_the_hardware_effect_is_a_speed_up_with_its_interval_per_backend() -> None:
    runs = [
        {"status": "ok", "backend": b, "cpus": c, "timing": {"steady_step_s": {"median": t}}}
        for b, c, times in (
            ("torch", 1, [0.010, 0.011, 0.0105]),
            ("torch", 2, [0.006, 0.0062, 0.0061]),
            ("tensorflow", 1, [0.008, 0.0082]),
            ("tensorflow", 2, [0.005, 0.0049]),
        )
        for t in times
    ]
    lines = hardware_effect.hardware_lines(runs, 2)
    assert lines[0].startswith("hardware: 1 core to all (2), speed-up")
    assert "in this sweep's minutes" in lines[0]  # what a one-sweep interval can claim
    torch = next(x for x in lines if x.strip().startswith("torch"))
    assert "1.72x [" in torch and "(3 and 3 runs, not paired)" in torch  # no rounds in them
    assert screen.direction_problems("\n".join(lines), []) == []
    # a resident pair's records are workers, each a life of many blocks, not runs
    resident = {"design": {"pairing": "resident", "measure": "wall"}, "series": []}
    shown = screen.end_lines(resident, runs, {}, 2)
    assert any("(3 and 3 resident workers, not paired)" in x for x in shown), shown


def test_the_hardware_effect_pairs_each_round_s_core_counts_so_a_host_phase_cancels() -> None:
    """A deciding sweep runs each round's pair at 1 core and then at all cores, seconds apart.
    Here the host slows by half from round 3 on, 1 core decided after round 5 while all cores
    went on alone to round 11, and round 2's all-core worker died. Every round that holds both
    says 2.00x; the medians of all the workers (the Welch form) read 1.67x, and a pairing by
    position would meet round 2 with round 3."""
    one = {0: 10, 1: 10, 2: 10, 3: 15, 4: 15, 5: 15}
    most = {0: 5, 1: 5, **{k: 7.5 for k in range(3, 12)}}
    runs = [
        {"status": "ok", "backend": "torch", "cpus": c, "repeat": k,
         "timing": {"steady_step_s": {"median": t / 1000}}}
        for c, steps in ((1, one), (2, most))
        for k, t in steps.items()
    ]  # fmt: skip
    torch = hardware_effect.hardware_lines(runs, 2)[1]
    assert "2.00x [2.00, 2.00]  (5 rounds paired)" in torch, torch
    speedup, lo, _, rounds = hardware_effect.hardware_ratio(
        [(None, 10.0), (None, 11.0)], [(None, 5.0)]
    )
    # no rounds and one run a side: the medians' ratio, no interval
    assert rounds == 0 and lo is None and speedup == pytest.approx(2.1)


def test_the_hardware_effect_says_what_a_step_costs_on_the_extra_cores() -> None:
    """At a price per core, 4 cores that run a step 2.5x faster make it 4 / 2.5 = 1.6x dearer;
    the cost's interval takes the speed-up's ends the other way round."""
    runs = [
        {"status": "ok", "backend": "torch", "cpus": c, "repeat": k,
         "timing": {"steady_step_s": {"median": t / 1000}}}
        for k, fast in enumerate((4.0, 4.2, 3.8, 4.1))
        for c, t in ((1, 10.0), (4, fast))
    ]  # fmt: skip
    lines = hardware_effect.hardware_lines(runs, 4)
    assert "a step's cost at all (4) over 1 core at a price per core" in lines[0]
    speedup, lo, hi, rounds = hardware_effect.hardware_ratio(
        [(k, 10.0) for k in range(4)], [(k, f) for k, f in enumerate((4.0, 4.2, 3.8, 4.1))]
    )
    assert rounds == 4 and lo < speedup < hi
    cost = f"cost per step {4 / speedup:.2f}x [{4 / hi:.2f}, {4 / lo:.2f}]"
    assert lines[1].endswith(cost), (lines[1], cost)
    assert 1.55 < 4 / speedup < 1.65
    assert screen.direction_problems("\n".join(lines), []) == []


def test_the_hardware_effect_of_one_backend_at_two_settings_keeps_the_settings_apart() -> None:
    """`backend=torch backend.allocator=default,retain` at 1 and 2 cores: two sides of one
    backend, each its own speed-up (pooled, they read as one backend's 2.5x)."""
    runs = [
        {"status": "ok", "backend": "torch", "cpus": c, "timing": {"steady_step_s": {"median": t}},
         "config": {"backend": {"name": "torch", "mkldnn": True, "allocator": mode}}}
        for mode, c, times in (
            ("default", 1, [0.020, 0.021]),
            ("default", 2, [0.010, 0.0105]),
            ("retain", 1, [0.010, 0.0105]),
            ("retain", 2, [0.008, 0.0084]),
        )
        for t in times
    ]  # fmt: skip
    lines = hardware_effect.hardware_lines(runs, 2)
    default = next(x for x in lines if "torch allocator=default" in x)
    retain = next(x for x in lines if "torch allocator=retain" in x)
    assert "2.00x" in default and "1.25x" in retain and "(2 and 2 runs, not paired)" in retain
    assert not any("mkldnn" in x for x in lines)  # a setting both sides share names neither


def test_the_live_line_is_redrawn_on_a_terminal_and_thinned_in_a_log() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    tty = Tty()
    live = screen.LiveLine(tty)
    for i in range(5):
        live.show(f"measuring: pair {i}")
    live.clear()
    assert tty.getvalue().count("\n") == 0  # one line, drawn over itself

    clock = iter([0.0, 10.0, 20.0, 70.0, 80.0])
    log = io.StringIO()
    live = screen.LiveLine(log, every_s=60.0, now=lambda: next(clock))
    for i in range(4):
        live.show(f"measuring: pair {i}")
    live.show("measuring: 1 core decided", force=True)
    assert log.getvalue().splitlines() == [
        "measuring: pair 0",
        "measuring: pair 3",
        "measuring: 1 core decided",
    ]


def test_the_live_line_holds_a_core_count_whose_pairs_all_lost_a_half() -> None:
    """It read the latest ratio of a core count that had none (IndexError, found 2026-12-06 with
    a deciding sweep whose jobs all failed), and the sweep ended in a traceback."""
    failing = decide.Series("cpus=null", Design(pairing="resident"), max_pairs=40)
    failing.add_unit(["torch", "tensorflow"], None, 0, 1.0)  # a worker pair with no whole round
    deciding = decide.Series("cpus=1", Design(pairing="resident"), max_pairs=40)
    deciding.add_unit(["torch", "tensorflow"], {"wall": 1.2, "cpu": 1.1}, 20, 8.0)
    line = screen.progress_text([deciding, failing], 2, 9.0, 330.0)
    assert "1 core 1 pair (1.200)" in line and "all (2) 1 pair (none complete)" in line
