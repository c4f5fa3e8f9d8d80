"""Progress: what a waiting user sees, and proof that showing it leaves the timed steps alone."""

from __future__ import annotations

import io
import logging
import os
import statistics

from frameworks.timing import RunClock
from twinbench import progress
from twinbench.callbacks import sweep_size


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
    assert bar.line(0) is None  # nothing started yet
    clock.epoch_begin()
    for _ in range(25):
        fake.t += 80_000_000  # 80 ms steps
        clock.step_end()
    assert bar.line(fake.t) == (
        "[torch mlp cpus=1] epoch 1/3  step 25/100 (25%)  2s, about 6s left"
    )
    for _ in range(75):
        clock.step_end()
    assert "validating" in bar.line(fake.t)
    clock.epoch_end()
    assert bar.line(fake.t) is None  # between epochs the epoch's own line speaks


def test_keras_ticks_of_several_steps_are_counted_as_ticks():
    clock = RunClock(now_ns=FakeClock())
    clock.steps_per_tick = 10
    clock.epoch_begin()
    clock.step_end()
    bar = progress.EpochProgress(clock, "tf", epochs=1, steps_per_epoch=100)
    assert "step 1/10 " in bar.line(0)


def test_status_lines_replace_each_other_on_a_terminal_and_are_thinned_in_a_log(caplog):
    class Tty(io.StringIO):
        def isatty(self):
            return True

    tty = Tty()
    relay = progress.Relay(out=tty)
    relay.run([progress.STATUS_MARK + "step 1\n", progress.STATUS_MARK + "step 2\n"])
    assert tty.getvalue() == "\r\x1b[Kstep 1\r\x1b[Kstep 2\r\x1b[K"

    caplog.set_level(logging.INFO)
    piped = progress.Relay(out=io.StringIO())
    piped.run([progress.STATUS_MARK + "first\n", progress.STATUS_MARK + "soon after\n", "epoch\n"])
    assert caplog.messages == ["first", "epoch"]  # ordinary lines always come through

    quiet = Tty()
    progress.Relay(out=quiet, quiet=True).run([progress.STATUS_MARK + "hidden\n"])
    assert quiet.getvalue() == ""


def test_the_progress_thread_leaves_steady_step_times_unchanged():
    """Steps of fixed work (~0.7 ms of pure Python, which needs the GIL the whole time: the
    worst case; real steps release it in native kernels), timed by the RunClock as the adapters
    time them, in alternating blocks with and without the progress thread. The thread wakes
    every 10 ms, 100 times as often as in a run, and may not move the median or the mean step by
    more than the noise of a loaded machine (measured there: median ratios 1.01-1.12 at 20 ms
    wake-ups, 0.99-1.01 at the real 1 s). The mean catches a thread that holds the GIL: the
    median alone would not (most steps fall between its time slices)."""
    devnull = open(os.devnull, "w")  # noqa: SIM115 -- closed below

    def steps(with_progress: bool) -> list[int]:
        clock = RunClock()
        bar = progress.EpochProgress(
            clock, "probe", 1, 150, say=lambda text: print(text, file=devnull), wake_s=0.01
        )
        clock.epoch_begin()
        if with_progress:
            bar.__enter__()
        for _ in range(150):
            sum(i * i for i in range(20_000))  # the same work every step
            clock.step_end()
        if with_progress:
            bar.__exit__(None, None, None)
        return clock.step_times_ns()[0][1:]

    plain, watched = [], []
    for _ in range(3):
        plain += steps(False)
        watched += steps(True)
    devnull.close()
    # The median (the reported steady step) and the mean (what epoch times add up), both.
    for centre in (statistics.median, statistics.fmean):
        ratio = centre(watched) / centre(plain)
        assert 0.8 < ratio < 1.25, (centre.__name__, ratio)


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
        progress.Relay(out=io.StringIO()).run(["  [torch mlp cpus=1] epoch 1/2 ...\n"])
    finally:
        root.removeHandler(handler)
        root.setLevel(old_level)
        handler.close()
    assert "epoch 1/2" in (tmp_path / "run.log").read_text()
