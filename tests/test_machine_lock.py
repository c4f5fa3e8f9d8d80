"""The measurement lock (twinbench/launch/machine_lock.py) serialises runs on a machine and
cannot be undone from outside: deleting the configured lock path changes nothing."""

from __future__ import annotations

import multiprocessing
import os
import signal
import time
from pathlib import Path

import pytest

from twinbench.launch.machine_lock import measurement_lock

# it times how long a waiting run takes to get the lock (tests/sharing.py)
pytestmark = pytest.mark.serial


def _hold(key: str, ready, release) -> None:
    with measurement_lock(key):
        ready.set()
        release.wait(30)


def _try(key: str, acquired) -> None:
    with measurement_lock(key):
        acquired.set()


def _start_holder(ctx, key: str):
    ready, release = ctx.Event(), ctx.Event()
    holder = ctx.Process(target=_hold, args=(key, ready, release))
    holder.start()
    assert ready.wait(30), "the holder never took the lock"
    return holder, release


def test_a_second_run_waits_even_when_the_lock_path_is_deleted(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    key = str(tmp_path / "twinbench-measure.lock")
    holder, release = _start_holder(ctx, key)
    Path(key).unlink(missing_ok=True)  # what broke the file lock: rm of its path
    acquired = ctx.Event()
    waiter = ctx.Process(target=_try, args=(key, acquired))
    waiter.start()
    try:
        assert not acquired.wait(1.5), "a second run measured while the first held the lock"
        release.set()
        assert acquired.wait(30), "the lock was not handed on when its holder finished"
    finally:
        release.set()
        for p in (holder, waiter):
            p.join(30)


def test_the_lock_is_freed_when_its_holder_is_killed(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    key = str(tmp_path / "lock")
    holder, _ = _start_holder(ctx, key)
    os.kill(holder.pid, signal.SIGKILL)
    holder.join(30)
    start = time.monotonic()
    with measurement_lock(key):
        assert time.monotonic() - start < 5


def test_different_keys_are_different_locks(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    holder, release = _start_holder(ctx, str(tmp_path / "a"))
    try:
        start = time.monotonic()
        with measurement_lock(str(tmp_path / "b")):
            assert time.monotonic() - start < 1
    finally:
        release.set()
        holder.join(30)


def test_waiting_is_announced_once(tmp_path):
    ctx = multiprocessing.get_context("spawn")
    key = str(tmp_path / "lock")
    holder, release = _start_holder(ctx, key)
    calls = []

    def announce():
        calls.append(time.monotonic())
        release.set()  # the holder finishes once we have said we wait

    with measurement_lock(key, on_wait=announce):
        pass
    holder.join(30)
    assert len(calls) == 1


def test_a_run_that_waits_for_the_lock_says_so_on_its_own(tmp_path, capfd):
    """Every caller (a run's repeats, a pair in turns, the speed tables) takes the lock without
    naming an announcer: a second sweep waited silently behind its progress line."""
    import threading

    ctx = multiprocessing.get_context("spawn")
    key = str(tmp_path / "lock")
    holder, release = _start_holder(ctx, key)
    threading.Timer(0.5, release.set).start()
    with measurement_lock(key):
        pass
    holder.join(30)
    assert capfd.readouterr().err.count("twinbench: waiting: another run is measuring") == 1
    with measurement_lock(key):  # nobody holds it: nothing said
        pass
    assert capfd.readouterr().err == ""
