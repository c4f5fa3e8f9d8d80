"""Progress: what a waiting user sees, and proof that showing it leaves the timed steps alone."""

from __future__ import annotations

import contextlib
import io
import json
import logging
import subprocess
import sys
import threading
import time

import pytest

from frameworks.timing import RunClock
from twinbench.cli.sweep_end import sweep_size
from twinbench.ui import live, progress


class FakeClock:
    def __init__(self):
        self.t = 0

    def __call__(self) -> int:
        return self.t


def test_durations_read_as_people_say_them():
    assert [progress.duration(s) for s in (0, 41.6, 185, 3725)] == ["0s", "42s", "3m 05s", "1h 02m"]


def test_the_epoch_line_counts_steps_and_estimates_the_rest_of_the_epoch():
    fake = FakeClock()
    clock = RunClock(now_ns=fake)
    bar = progress.EpochProgress(clock, "torch mlp cpus=1", epochs=3, steps_per_epoch=100)
    assert bar.sample(0) is None  # nothing started yet
    clock.epoch_begin()
    for _ in range(25):
        fake.t += 80_000_000  # 80 ms steps
        clock.step_end()
    assert progress.describe(bar.sample(fake.t)) == (
        "[torch mlp cpus=1] epoch 1/3  step 25/100 (25%)  2s, about 6s left"
    )
    for _ in range(75):
        clock.step_end()
    assert "validating" in progress.describe(bar.sample(fake.t))
    clock.epoch_end()
    assert bar.sample(fake.t) is None  # between epochs the epoch's own line speaks


def test_keras_ticks_of_several_steps_are_counted_as_ticks():
    clock = RunClock(now_ns=FakeClock())
    clock.steps_per_tick = 10
    clock.epoch_begin()
    clock.step_end()
    bar = progress.EpochProgress(clock, "tf", epochs=1, steps_per_epoch=100)
    assert "step 1/10 " in progress.describe(bar.sample(0))


class Tty(io.StringIO):
    def isatty(self):
        return True


def sample_line(done: int, total: int = 100) -> str:
    sample = {"label": "torch mlp cpus=1", "epoch": 1, "epochs": 2, "done": done,
              "total": total, "elapsed_s": done * 0.08}  # fmt: skip
    return progress.SAMPLE_MARK + json.dumps(sample) + "\n"


def test_on_a_terminal_rich_draws_the_epoch_bar_and_erases_it_for_an_ordinary_line(
    caplog, monkeypatch
):
    monkeypatch.setenv("COLUMNS", "160")  # rich cuts descriptions to fit a narrow terminal
    caplog.set_level(logging.INFO)
    tty = Tty()
    relay = live.Relay(out=tty)
    relay.line(progress.STATUS_MARK + "[torch mlp cpus=1] data: mnist (synthetic)...\n")
    relay.line(sample_line(25))
    drawn = tty.getvalue()
    assert "data: mnist" in drawn
    assert "[torch mlp cpus=1] epoch 1/2" in drawn and "25/100" in drawn
    assert "about 6s left" in drawn
    assert caplog.messages == []  # nothing transient reaches the log
    relay.line("  [torch mlp cpus=1] epoch 1/2 done\n")
    assert relay._view is None  # the bar is gone before the line is written
    assert caplog.messages == ["  [torch mlp cpus=1] epoch 1/2 done"]

    quiet = Tty()
    live.Relay(out=quiet, quiet=True).run([progress.STATUS_MARK + "hidden\n", sample_line(5)])
    assert quiet.getvalue() == ""


def test_in_a_log_phases_are_logged_and_epoch_samples_thinned(caplog):
    caplog.set_level(logging.INFO)
    piped = live.Relay(out=io.StringIO())
    piped.run(
        [progress.STATUS_MARK + "importing torch...\n", sample_line(1), sample_line(2),
         progress.STATUS_MARK + "validating...\n", "epoch\n"]
    )  # fmt: skip
    assert caplog.messages == [
        "importing torch...",
        "[torch mlp cpus=1] epoch 1/2  step 1/100 (1%)  0s, about 8s left",  # the second: thinned
        "validating...",
        "epoch",
    ]


def test_a_sweep_row_shows_job_i_of_n_above_the_run(monkeypatch):
    monkeypatch.setenv("COLUMNS", "160")
    from twinbench.ui import live

    monkeypatch.setattr(live.time, "time", lambda: 1060.0)
    sweep = progress.SweepState(job=2, jobs=4, started_s=1000.0, name="backend=torch")
    tty = Tty()
    view = live.LiveView(tty, sweep)
    view.show("importing torch...", None, sweep)
    drawn = tty.getvalue()
    assert "sweep job 2/4: backend=torch" in drawn and "1/4" in drawn
    assert "1m 00s, about 3m 00s left" in drawn
    assert drawn.index("sweep job") < drawn.index("importing torch")
    view.close()


def test_the_worker_side_never_loads_rich():
    """The worker imports twinbench.ui.progress; drawing (rich) belongs to the parent alone."""
    code = "import sys, twinbench.ui.progress, twinbench.worker; print('rich' in sys.modules)"
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert proc.stdout.strip() == "False"


@pytest.mark.serial  # it times wake-ups (tests/sharing.py)
def test_a_wake_up_costs_microseconds_and_never_writes_to_the_clock():
    """What a wake-up costs is the CPU time of reading two list lengths and sending one JSON
    line (measured as this thread's CPU time, which a loaded machine does not inflate the way it
    inflates wall time) -- under 200 us, i.e. under 0.02% of a 1 s interval -- and the clock's
    records are the same with the thread as without it.
    (Wall-clock A/B comparisons of step medians on the shared 2-core machine moved by +-30%
    either way with or without the thread, so they cannot be a reliable test here.)"""
    fake = FakeClock()
    clock = RunClock(now_ns=fake)
    clock.epoch_begin()
    for _ in range(5000):
        fake.t += 1_000_000
        clock.step_end()
    sink = io.StringIO()
    bar = progress.EpochProgress(
        clock, "probe", 3, 20_000, say=lambda s: progress.send_sample(s, sink)
    )
    before = [list(e) for e in clock.step_end_ns], list(clock.epoch_start_ns)
    start = time.thread_time_ns()
    for _ in range(1000):
        bar.wake()
    per_wake_us = (time.thread_time_ns() - start) / 1000 / 1e3
    assert per_wake_us < 200, per_wake_us
    assert sink.getvalue().count(progress.SAMPLE_MARK) == 1000
    assert ([list(e) for e in clock.step_end_ns], list(clock.epoch_start_ns)) == before


@pytest.mark.serial  # it times wake-ups (tests/sharing.py)
def test_progress_never_runs_on_the_timed_thread_and_touches_at_most_one_step_per_wake_up():
    """A tiny run, progress on and off: the timed loop (pure Python, which holds the GIL: the
    worst case for a second thread) steps the clock; the progress thread, woken 100x as often
    as in a real run, samples it. Every wake-up runs on the progress thread, never on the one
    that stamps the clock, and each falls inside at most one step's interval: the steps it can
    lengthen are at most as many as the wake-ups -- here under a tenth of the steady steps, so
    the steady median stays one of the untouched steps' middle order statistics (a real run
    wakes once a second). Off, nothing runs at all."""

    def tiny_run(on: bool) -> tuple[RunClock, list[tuple[int, int, int]]]:
        clock, wakes = RunClock(), []

        class Probe(progress.EpochProgress):
            def wake(self):
                t0 = time.perf_counter_ns()
                super().wake()
                wakes.append((threading.get_ident(), t0, time.perf_counter_ns()))

        bar = Probe(clock, "tiny", 1, 400, say=lambda s: None, wake_s=0.01)
        with bar if on else contextlib.nullcontext():
            clock.epoch_begin()
            for _ in range(400):
                sum(range(20_000))  # a step: about a millisecond of Python
                clock.step_end()
            clock.validation_begin()
            clock.epoch_end()
        return clock, wakes

    _, none = tiny_run(on=False)
    assert none == []
    clock, wakes = tiny_run(on=True)
    timed_thread = threading.get_ident()
    assert wakes and all(ident != timed_thread for ident, _, _ in wakes)
    starts = [clock.epoch_start_ns[0], *clock.step_end_ns[0][:-1]]
    ends = clock.step_end_ns[0]
    touched = {
        i
        for _, w0, w1 in wakes
        for i, (s, e) in enumerate(zip(starts, ends, strict=True))
        if w0 < e and w1 > s
    }
    assert len(touched) <= len(wakes) + 1  # a wake-up spans a step boundary at most once
    assert len(touched) < len(ends) / 10


@pytest.mark.serial  # it times wake-ups (tests/sharing.py)
def test_the_progress_thread_wakes_once_per_interval_and_stops_with_training():
    said = []
    clock = RunClock()
    clock.epoch_begin()
    with progress.EpochProgress(clock, "probe", 1, 100, say=said.append, wake_s=0.05):
        time.sleep(0.32)
    count = len(said)
    time.sleep(0.15)
    assert 3 <= count <= 7  # about 0.32 / 0.05 wake-ups, however loaded the machine
    assert len(said) == count  # nothing after the block: the thread has stopped


def test_a_sweep_counts_its_jobs_from_the_command_line_and_the_sweepers_params():
    assert sweep_size(["backend=torch,tensorflow", "cpus=1"], {}) == 2
    assert (
        sweep_size(["+experiment=compare"], {"backend": "torch,tensorflow", "cpus": "1,null"}) == 4
    )
    # the command line wins over the experiment's own list
    assert sweep_size(["cpus=1,2,3"], {"backend": "torch,tensorflow", "cpus": "1,null"}) == 6
    assert sweep_size(["model=glob(*)"], {}) is None


def test_the_worker_lines_reach_run_log_through_logging(tmp_path):
    handler = logging.FileHandler(tmp_path / "run.log")
    root = logging.getLogger()
    root.addHandler(handler)
    old_level = root.level
    root.setLevel(logging.INFO)
    try:
        live.Relay(out=io.StringIO()).run(["  [torch mlp cpus=1] epoch 1/2 ...\n"])
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
        handler.close()
    assert "epoch 1/2" in (tmp_path / "run.log").read_text()


def test_before_each_job_a_sweep_says_which_job_and_how_long_is_left(caplog, monkeypatch):
    from omegaconf import OmegaConf

    from twinbench.cli import sweep_end as callbacks

    caplog.set_level(logging.INFO)
    now = [1000.0]
    monkeypatch.setattr(callbacks.time, "time", lambda: now[0])
    monkeypatch.setattr(progress, "current_sweep", None)  # restored when the test ends
    hook = callbacks.SweepSummary()
    sweep = {"sweeper": {"params": {"backend": "torch,tensorflow", "cpus": "1,null"}},
             "overrides": {"task": ["+experiment=compare"]}}  # fmt: skip
    hook.on_multirun_start(OmegaConf.create({"hydra": sweep}))
    now[0] += 60  # the first job took a minute
    job = {"num": 1, "override_dirname": "backend=torch,cpus=null"}
    hook.on_job_start(OmegaConf.create({"hydra": {**sweep, "job": job}}))
    assert caplog.messages == [
        "sweep: job 2/4: backend=torch,cpus=null  (1m 00s elapsed, about 3m 00s left)"
    ]


def test_on_a_terminal_a_phase_is_drawn_and_still_reaches_run_log(tmp_path):
    handler = logging.FileHandler(tmp_path / "run.log")
    root = logging.getLogger()
    root.addHandler(handler)
    old_level = root.level
    root.setLevel(logging.INFO)
    try:
        tty = Tty()
        live.Relay(out=tty).run([progress.STATUS_MARK + "importing torch...\n", sample_line(3)])
        live.Relay(out=Tty(), quiet=True).run([progress.STATUS_MARK + "quiet phase\n"])
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
        handler.close()
    logged = (tmp_path / "run.log").read_text()
    assert "importing torch..." in tty.getvalue() and "importing torch..." in logged
    assert "quiet phase" in logged
    assert "step 3/100" not in logged  # samples are drawn, never logged on a terminal


def finished_record(**timing_flags) -> dict:
    step = {"median": 0.00706, "ci_low": 0.00697, "ci_high": 0.00711, "confidence": 0.95,
            "n": 589, "unstable": timing_flags.get("unstable", False), "batches": 20}  # fmt: skip
    return {
        "backend": "torch", "model": "mlp", "cpus": 2, "status": "ok", "device": "cpu",
        "params": 669_706, "affinity": [0, 1],
        "threads_requested": {"intra_op": 2, "inter_op": 2},
        "threads_actual": {"intra_op": 2, "inter_op": 2},
        "timing": {"epoch_s": {"median": 2.19, "n": 2}, "steady_step_s": step,
                   "steady_samples_per_s": 18137.0,
                   "drift": {"drifting": True, "ratio_last_to_first_third": 1.36}},
        "startup": {"total_s": 4.76, "framework_import_s": 0.92, "first_step_s": 0.032},
        "history": {"loss": [0.45, 0.1203], "accuracy": [0.85, 0.9622],
                    "val_loss": [None, 0.1208], "val_accuracy": [None, 0.9588]},
        "flops": {"fraction_of_peak": 0.29, "achieved_gflops": 58.2, "peak_gflops": 201.1},
        "machine_peak": {"machine_peak_gflops": 201.1},
    }  # fmt: skip


def test_a_runs_summary_is_a_table_of_plain_aligned_columns_in_a_log():
    from twinbench.launch import runner as launch

    text = launch.summary(finished_record(unstable=True), tty=False)
    lines = text.splitlines()
    assert lines[0] == "torch mlp cpus=2  device=cpu  params=669,706"
    rows = {line.split(maxsplit=1)[0]: line for line in lines[1:]}
    assert "running 2/2 (verified)" in rows["threads"]
    assert "7.06 ms [6.97, 7.11] (95% CI, 589 steps in 20 batches)" in rows["steady"]
    assert "val_acc 0.9588" in rows["final"]  # the last validated epoch
    assert "29% of the 201.1 GFLOP/s machine peak" in rows["compute"]
    # one column of values: every value starts where the others do, and no rule is drawn
    value_starts = {"intra/inter", "7.06 ms", "loss 0.1203", "58.2 GFLOP/s", "steps drifted"}
    assert len({line.index(v) for line in lines for v in value_starts if v in line}) == 1
    assert sum("WARNING" in line for line in lines) == 2  # drift and an unstable interval
    assert not any(ch in text for ch in "─━│\x1b")
    failed = {"backend": "torch", "model": "mlp", "cpus": 1, "status": "failed", "error": "boom"}
    assert launch.summary(failed, tty=False) == "torch mlp cpus=1: FAILED: boom"


def test_a_phase_after_an_epoch_shows_no_stale_count():
    from twinbench.ui import live

    view = live.LiveView(Tty())
    view.show("epoch", json.loads(sample_line(25)[len(progress.SAMPLE_MARK) :]), None)
    assert [(t.completed, t.total) for t in view.progress.tasks] == [(25, 100)]
    view.show("[torch mlp cpus=1] validating...", None, None)
    assert [(t.description, t.total) for t in view.progress.tasks] == [
        ("[torch mlp cpus=1] validating...", None)
    ]
    view.close()


def test_a_malformed_sample_is_passed_on_as_a_line_and_the_relay_goes_on(caplog):
    caplog.set_level(logging.INFO)
    live.Relay(out=io.StringIO()).run(
        [progress.SAMPLE_MARK + "{not json\n", progress.SAMPLE_MARK + "{}\n", "after\n"]
    )
    assert caplog.messages == [
        progress.SAMPLE_MARK + "{not json",
        progress.SAMPLE_MARK + "{}",
        "after",
    ]
