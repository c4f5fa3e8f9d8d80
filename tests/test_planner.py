"""The sweep planner: before the first job, how many runs a sweep holds, how many a resume will
skip, and how long the rest should take on this machine, from earlier records only.

Jobs are expanded from a multirun config composed by Hydra itself; "finished" runs are written
by launch.run_job (with the worker replaced by a stub that records a run), so the planner must
agree with run_job's own resume test, not with a copy of it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from twinbench.launch import planner
from twinbench.launch import runner as launch
from twinbench.machine import environment
from twinbench.paths import REPO_ROOT
from twinbench.result import results

MACHINE = environment.machine_fingerprint(environment.describe())


@pytest.fixture
def sweep_config(tmp_path):
    """The master config Hydra hands a multirun's callbacks, for given command-line overrides."""
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode

    with initialize_config_dir(str(REPO_ROOT / "conf"), version_base="1.3"):
        loader = GlobalHydra.instance().config_loader()

        def make(*overrides: str):
            sweep_dir = f"hydra.sweep.dir={tmp_path / 'sweeps' / 'now'}"
            return loader.load_configuration("config", [sweep_dir, *overrides], RunMode.MULTIRUN)

        yield make


def fake_measure(wall_s: float, train_s: float, steps_per_epoch: int = 3):
    """A stand-in for the worker: an ok record lasting `wall_s`, `train_s` of it in epochs."""

    def measure_once(spec, config, run_dir: Path):
        record = {
            "status": "ok",
            "run_key": config["run_key"],
            "epochs": config["epochs"],
            "steps_per_epoch": steps_per_epoch,
            "epoch_times_s": [train_s / config["epochs"]] * config["epochs"],
            "started": "2026-01-01T00:00:00+00:00",
            "finished": f"2026-01-01T00:00:{wall_s:06.3f}+00:00",
            "environment": {"fingerprint": MACHINE},
            "config": config,
            # What summarize_repeats reads when a job has several repeats.
            "timing": {
                "steady_step_s": {"median": 0.5},
                "epoch_s": {"median": 1.5},
                "steady_samples_per_s": 256.0,
            },
        }
        results.write_atomic(run_dir / results.RESULT_FILE, record)
        return record

    return measure_once


def test_the_plan_counts_runs_and_the_ones_a_resume_will_skip(sweep_config, monkeypatch):
    config = sweep_config("backend=torch,tensorflow", "cpus=1", "max_steps=3", "repeats=2")
    jobs = planner.hydra_jobs(config)
    assert [c["backend"]["name"] for c, _ in jobs] == ["torch", "tensorflow"]
    assert [d.name for _, d in jobs] == ["backend=torch,cpus=1,max_steps=3",
                                         "backend=tensorflow,cpus=1,max_steps=3"]  # fmt: skip
    monkeypatch.setattr(launch, "measure_once", fake_measure(8.0, 2.0))
    launch.run_job(*jobs[0])  # torch's two repeats finish

    plan = planner.plan_jobs(jobs)
    assert (len(plan.runs), plan.finished, len(plan.pending)) == (4, 2, 2)
    # No earlier tensorflow record: the planner says so instead of guessing.
    line = planner.estimate(plan, planner.history([Path(config.hydra.sweep.dir)], MACHINE))
    assert "4 run(s); 2 already finished, 2 to measure; no wall-time estimate" in line.describe()


def test_the_estimate_uses_the_same_config_else_a_similar_one_scaled_by_steps(
    sweep_config, tmp_path, monkeypatch
):
    config = sweep_config("backend=torch,tensorflow", "cpus=1", "max_steps=3")
    jobs = planner.hydra_jobs(config)
    # An earlier sweep measured the same torch job (12 s) and tensorflow with 6 steps per epoch
    # (20 s: 8 s overhead, 12 s training, so 8 + 6 s at this sweep's 3 steps); another
    # machine's record must not count.
    monkeypatch.setattr(launch, "measure_once", fake_measure(12.0, 4.0))
    launch.run_job(jobs[0][0], tmp_path / "sweeps" / "earlier" / "torch")
    monkeypatch.setattr(launch, "measure_once", fake_measure(20.0, 12.0, steps_per_epoch=6))
    launch.run_job({**jobs[1][0], "max_steps": 6}, tmp_path / "sweeps" / "earlier" / "tf")
    other = tmp_path / "sweeps" / "elsewhere" / "torch" / results.RESULT_FILE
    record = results.read(tmp_path / "sweeps" / "earlier" / "torch" / results.RESULT_FILE)
    record["environment"] = {"fingerprint": "Another CPU x128"}
    results.write_atomic(other, record)

    plan = planner.plan_jobs(jobs)
    plan = planner.estimate(plan, planner.history([tmp_path / "sweeps"], MACHINE))
    assert plan.history_records == 2
    assert plan.estimated_runs == 2 and plan.similar_runs == 1
    assert plan.estimate_s == pytest.approx(12.0 + 8.0 + 6.0)
    assert "estimated wall time 26s for 2 of them, from 2 earlier record(s)" in plan.describe()
    assert "at most" not in plan.describe()
    # A deciding sweep (README command 1) stops each core count once decided: its plan is a bound
    plan.deciding = True
    assert plan.describe().endswith("stops as soon as its pairs decide or its budget "
                                    "(pairs, seconds) is spent")  # fmt: skip
    # With a pool of seconds for all its pairs (README command 1's 330 s), that pool is the bound
    # the plan gives: every run's estimate would read as the sweep's length, which it never is
    plan.pool_s = 330.0
    assert plan.describe() == (
        "plan: up to 2 run(s), 0 already finished; each core count stops as soon as its pairs "
        "decide, and the pairs stop within 5m30s in all (all 2 would take 26s, from 2 earlier "
        "record(s) on this machine)"
    )
    plan.estimated_runs = 1  # one run with no comparable record: no sum is given for the rest
    assert plan.describe().endswith("stop within 5m30s in all")


def readme_command_1s_plan(sweep_dir: Path) -> str:
    """The plan line README command 1 prints, with its sweep folder at `sweep_dir`."""
    from hydra import compose, initialize_config_dir

    from twinbench.paths import CONF_DIR

    with initialize_config_dir(str(CONF_DIR), version_base="1.3"):
        cfg = compose(
            "config",
            overrides=["+experiment=compare", f"hydra.sweep.dir={sweep_dir}"],
            return_hydra_config=True,
        )
        return planner.announce(cfg)


def test_readme_command_1s_plan_is_bounded_by_its_pool_of_seconds(tmp_path):
    """announce() reads the deciding sweep's pool (decision.total_seconds of
    conf/experiment/compare.yaml): the plan line gives it, not the sum of every run."""
    line = readme_command_1s_plan(tmp_path / "sweep")
    assert line.startswith("plan: up to ") and "the pairs stop within 5m30s in all" in line
    assert "0 already finished" in line  # a first run: nothing to go on from


def test_a_resumed_deciding_sweeps_plan_counts_the_pairs_it_goes_on_from(tmp_path):
    """Re-run in its folder, README command 1 goes on from the pairs its decisions.json counted
    (Tracker.resume), but its plan said "0 already finished": resident pairs leave no result.json
    of their own, so the plan counted none while the next line said 5 pairs were restored."""
    from twinbench.launch.decide import DECISIONS_FILE

    sweep = tmp_path / "sweep"
    sweep.mkdir()
    series = [
        {"series": "cpus=1", "wall_ratios": [1.1, 1.2, 1.15], "incomplete": 1, "seconds": 100.0},
        {"series": "cpus=2", "wall_ratios": [1.0], "incomplete": 0, "seconds": 50.0},
    ]
    results.write_atomic(sweep / DECISIONS_FILE, {"design": {}, "series": series})
    line = readme_command_1s_plan(sweep)
    assert "5 pair(s) already counted" in line and "already finished" not in line
    # the pool is 5m30s in all, of which the counted pairs spent 150 s
    assert "within 5m30s in all, 3m00s of it left" in line
    runs = [planner.PlannedRun(sweep / str(i), {}, "key", False) for i in range(12)]
    plan = planner.Plan(runs=runs, deciding=True, resumed_pairs=5)  # without a pool
    assert "12 run(s); 5 pair(s) already counted, 2 to measure" in plan.describe()
    # with a pool and an estimate of every run: the estimate is of the runs left, not all 12
    plan = planner.Plan(runs=runs, deciding=True, resumed_pairs=5, resumed_seconds=30.0)
    plan.pool_s, plan.estimate_s, plan.estimated_runs, plan.history_records = 60.0, 120.0, 12, 3
    assert "within 1m00s in all, 30s of it left (all 2 would take 20s, from 3 earlier" in (
        plan.describe()
    )


def test_a_plan_that_cannot_be_made_never_stops_the_sweep():
    assert planner.announce(object()).startswith("plan: not available")


def test_durations_read_like_a_clock():
    assert [planner.format_duration(s) for s in (7, 61, 3725)] == ["7s", "1m01s", "1h02m"]


def test_the_search_for_earlier_records_reads_the_clock_at_every_folder(tmp_path):
    """The plan's search for earlier records read its deadline only when it found a record: a
    sweep folder whose parent held a large tree with none in it (a home folder, /usr) walked all
    of it before the first job, 5.6 s for /usr here. It now reads the clock at every folder, and
    does not enter hidden folders or virtual environments, which hold no records."""
    import itertools

    for i in range(30):
        (tmp_path / f"d{i:02d}").mkdir()
    (tmp_path / "d29" / results.RESULT_FILE).write_text("{}")
    for hidden in (tmp_path / ".venv" / "lib", tmp_path / "env"):
        hidden.mkdir(parents=True)
        (hidden / results.RESULT_FILE).write_text("{}")
    (tmp_path / "env" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    ticks = itertools.count()  # one second a reading
    assert list(planner.record_paths(tmp_path, 10, clock=lambda: next(ticks))) == []
    assert next(ticks) == 12  # the root and ten folders, then the reading past the deadline
    everything = list(planner.record_paths(tmp_path, float("inf")))
    assert everything == [tmp_path / "d29" / results.RESULT_FILE]
