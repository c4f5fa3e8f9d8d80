"""Pairs that take turns (decision `pairing: turns`): both halves alive, one computing at a time.

The worker side (frameworks/turns.py) and the conductor (twinbench/launch/turns.py) are checked
here with simulated workers on real pipes: who trains when, that the waits never enter a timed
figure, and that start-ups and post-training work never overlap a partner's steps. One slow test
runs the real thing: a deciding sweep whose pairs' records say they took turns.
"""

from __future__ import annotations

import io
import json
import os
import statistics
import threading
import time
from pathlib import Path

import pytest

from frameworks.timing import RunClock
from frameworks.turns import TURNS_ENV, Turns, from_environment
from twinbench.launch import turns
from twinbench.sequential import Design

# ---------------------------------------------------------------- the worker's clock


class FakeTime:
    """A clock the test moves: a step costs what the test says, a wait what the inbox says."""

    def __init__(self) -> None:
        self.ns = 0


class WaitingInbox(io.StringIO):
    """The sweep's answers; each read blocks for `wait_ns` of fake time (the partner's turn)."""

    def __init__(self, text: str, clock: FakeTime, wait_ns: int) -> None:
        super().__init__(text)
        self.clock, self.wait_ns = clock, wait_ns

    def readline(self, *args: object) -> str:  # type: ignore[override]
        self.clock.ns += self.wait_ns
        return super().readline(*args)


def _clock_with_turns(answers: str, wait_ns: int) -> tuple[RunClock, FakeTime, io.StringIO]:
    t = FakeTime()
    outbox = io.StringIO()
    inbox = WaitingInbox(answers, t, wait_ns)
    tr = Turns(inbox, outbox, now_ns=lambda: t.ns, cpu_ns=lambda: t.ns // 2)
    return RunClock(now_ns=lambda: t.ns, cpu_ns=lambda: t.ns // 2, turns=tr), t, outbox


def test_waits_for_the_partner_never_enter_step_epoch_or_cpu_times() -> None:
    clock, t, outbox = _clock_with_turns("go 2\n" * 4 + "go\n", wait_ns=10**9)  # 1 s a wait
    clock.epoch_begin()  # waits for the first turn here, before the epoch starts
    for _ in range(6):
        t.ns += 10_000_000  # a 10 ms step
        clock.step_end()  # every second step hands the turn over and waits 1 s
    clock.epoch_end()
    clock.training_end()
    assert clock.step_times_ns() == [[10_000_000] * 6]
    assert clock.epoch_times_s() == [pytest.approx(0.06)]
    start, end = clock.epoch_cpu_ns[0]
    assert end - start == 30_000_000  # half the wall, as the fake CPU clock says: no wait in it
    words = [line.split()[0] for line in outbox.getvalue().splitlines()]
    assert words == ["ready", "done", "done", "done", "end"]
    assert clock.turns.summary()["turns"] == 4
    assert clock.turns.paused_ns == 5 * 10**9  # the first turn, 3 hand-overs, the end


def test_each_done_reports_its_blocks_own_seconds_without_the_waits() -> None:
    """Resident pairs compare blocks: `done <wall s> <cpu s> <ticks>` is the block's time on the
    clock that leaves out the 1 s waits for the partner (twinbench/launch/resident.py)."""
    clock, t, outbox = _clock_with_turns("go 2\n" * 3 + "go\n", wait_ns=10**9)
    clock.epoch_begin()
    for ms in (10, 10, 30, 30):  # the second block's steps are three times slower
        t.ns += ms * 1_000_000
        clock.step_end()
    clock.epoch_end()
    clock.training_end()
    done = [line.split() for line in outbox.getvalue().splitlines() if line.startswith("done")]
    assert [(float(w), float(c), int(n)) for _, w, c, n in done] == [
        (pytest.approx(0.02), pytest.approx(0.01), 2),
        (pytest.approx(0.06), pytest.approx(0.03), 2),
    ]


def test_a_clock_without_the_variable_is_the_plain_clock(monkeypatch) -> None:
    monkeypatch.delenv(TURNS_ENV, raising=False)
    assert from_environment() is None
    ticks = iter(range(0, 100, 10))
    clock = RunClock(now_ns=lambda: next(ticks), cpu_ns=lambda: 0)
    clock.epoch_begin()
    clock.step_end()
    clock.step_end()
    clock.epoch_end()
    clock.training_end()
    assert clock.step_times_ns() == [[10, 10]]


def test_a_worker_whose_sweep_is_gone_trains_on_without_waiting() -> None:
    clock, t, _ = _clock_with_turns("go 1\n", wait_ns=0)  # then end of file
    clock.epoch_begin()
    for _ in range(5):
        t.ns += 1
        clock.step_end()
    clock.epoch_end()
    clock.training_end()
    assert clock.step_times_ns() == [[1] * 5]
    assert clock.turns.ticks_left is None  # no partner any more: free


# ---------------------------------------------------------------- the conductor


class Recorder:
    """What the simulated workers did, in the order they did it, and a check that no two
    computed at once."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.events: list[tuple[str, str]] = []
        self.computing: set[str] = set()
        self.overlaps = 0
        self.overlapped: list[str] = []  # "who:what" of each piece of work that had company

    def busy(self, who: str, what: str, seconds: float = 0.002) -> None:
        with self.lock:
            if self.computing - {who}:
                self.overlaps += 1
                self.overlapped.append(f"{who}:{what}")
            self.computing.add(who)
            self.events.append((who, what))
        time.sleep(seconds)  # the work itself: another side computing now is an overlap
        with self.lock:
            if self.computing - {who}:
                self.overlaps += 1
                self.overlapped.append(f"{who}:{what}")
            self.computing.discard(who)


def _simulated_worker(side: turns.Side, who: str, steps: int, rec: Recorder) -> threading.Thread:
    """A worker as the runner starts one: it waits to be let spawn, gets its pipes, starts up,
    trains `steps` ticks in turns, then does its post-training work and exits."""

    def run() -> None:
        env, _ = side.spawn_env()
        down, up = (int(x) for x in env[TURNS_ENV].split(","))
        mine = os.dup(down), os.dup(up)  # the "child's" copies; the sweep closes its own
        side.spawned(proc=None)
        tr = Turns(os.fdopen(mine[0], "r"), os.fdopen(mine[1], "w"))
        rec.busy(who, "start-up", 0.05)
        rec.events.append((who, "waits for its first turn"))
        tr.begin()
        for i in range(steps):
            rec.busy(who, f"step {i}")
            tr.tick()
        tr.end()
        rec.busy(who, "after training")
        tr.inbox.close()
        tr.outbox.close()  # the process exits: its pipe closes

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def _conduct(steps_a: int, steps_b: int, ticks: int) -> Recorder:
    rec = Recorder()
    conductor = turns.Conductor(("a", "b"), ticks=ticks, gap_s=0.0)
    leader = threading.Thread(target=conductor.conduct, daemon=True)
    leader.start()
    workers = [
        _simulated_worker(conductor.sides[0], "a", steps_a, rec),
        _simulated_worker(conductor.sides[1], "b", steps_b, rec),
    ]
    for t in [*workers, leader]:
        t.join(10)
        assert not t.is_alive(), "the pair did not finish: a worker was left waiting"
    assert conductor.error is None
    return rec


def test_turns_alternate_abba_in_blocks_and_never_overlap() -> None:
    rec = _conduct(steps_a=8, steps_b=8, ticks=2)
    steps = [who for who, what in rec.events if what.startswith("step")]
    blocks = [steps[i : i + 2] for i in range(0, len(steps), 2)]
    assert all(len(set(b)) == 1 for b in blocks), steps  # a turn is one side's block
    firsts = [b[0] for b in blocks]
    assert firsts == ["a", "b", "b", "a", "a", "b", "b", "a"]  # ABBA round after round
    assert rec.overlaps == 0


def test_start_ups_and_post_training_work_never_run_beside_a_partners_steps() -> None:
    rec = _conduct(steps_a=4, steps_b=10, ticks=2)
    order = [f"{who}:{what}" for who, what in rec.events]
    # B is let spawn only once A waits for its first turn; A's steps wait for B's start-up.
    assert order.index("a:waits for its first turn") < order.index("b:start-up")
    assert order.index("b:start-up") < order.index("a:step 0")
    assert rec.overlaps == 0
    # A ended first, and waits until B's training and B's own after-work are done.
    last_b = max(i for i, e in enumerate(order) if e.startswith("b:step"))
    assert order.index("a:after training") > order.index("b:after training") > last_b
    # Once A has ended, B trains the rest without handing turns to nobody.
    assert [e for e in order[order.index("a:step 3") :] if e.startswith("a:step")] == ["a:step 3"]


def test_a_half_that_never_starts_leaves_the_other_to_train_alone() -> None:
    rec = Recorder()
    conductor = turns.Conductor(("a", "b"), ticks=2, gap_s=0.0)
    leader = threading.Thread(target=conductor.conduct, daemon=True)
    leader.start()
    conductor.sides[0].finished()  # A failed before spawning (a config error, a reused run)
    worker = _simulated_worker(conductor.sides[1], "b", 5, rec)
    worker.join(10)
    leader.join(10)
    assert not worker.is_alive() and not leader.is_alive()
    assert [what for _, what in rec.events].count("step 4") == 1


def test_a_resident_conductor_gives_each_side_one_warm_up_turn_and_keeps_every_block() -> None:
    """With warmup_ticks, each side's first turn is a warm-up of that many ticks, its block kept
    apart; then blocks of `ticks` in ABBA order, each heard with its own seconds."""
    rec = Recorder()
    conductor = turns.Conductor(("a", "b"), ticks=2, gap_s=0.0, warmup_ticks=3)
    leader = threading.Thread(target=conductor.conduct, daemon=True)
    leader.start()
    workers = [
        _simulated_worker(conductor.sides[0], "a", 3 + 2 * 4, rec),
        _simulated_worker(conductor.sides[1], "b", 3 + 2 * 4, rec),
    ]
    for t in [*workers, leader]:
        t.join(10)
        assert not t.is_alive()
    for side in conductor.blocks:
        assert [(b.ticks, b.warmup) for b in side] == [(3, True)] + [(2, False)] * 4
        assert all(b.wall_s > 0 for b in side)
    steps = [who for who, what in rec.events if what.startswith("step")]
    firsts = [steps[0], steps[3]] + [steps[i] for i in range(6, len(steps), 2)]
    assert firsts == ["a", "b", "b", "a", "a", "b", "b", "a", "a", "b"]  # warm-ups, then ABBA
    assert rec.overlaps == 0


def test_a_resident_pair_starts_both_workers_at_once_and_still_never_overlaps_their_steps() -> None:
    """Resident worker pairs compare no start-up, so B starts without waiting for A to be ready
    (on two cores the two imports run side by side, a shorter unit); every step and every
    after-training piece of work still runs alone."""
    rec = Recorder()
    conductor = turns.Conductor(("a", "b"), ticks=2, gap_s=0.0, warmup_ticks=1, start_together=True)
    leader = threading.Thread(target=conductor.conduct, daemon=True)
    leader.start()
    workers = [_simulated_worker(conductor.sides[i], n, 1 + 2 * 3, rec) for i, n in enumerate("ab")]
    for t in [*workers, leader]:
        t.join(10)
        assert not t.is_alive()
    order = [f"{who}:{what}" for who, what in rec.events]
    assert order.index("b:start-up") < order.index("a:waits for its first turn")
    assert rec.overlapped and all(e.endswith(":start-up") for e in rec.overlapped)
    assert [len(side) for side in conductor.blocks] == [4, 4]  # a warm-up and 3 blocks each


def test_a_bare_or_garbled_done_is_no_block() -> None:
    assert turns.heard_block("done", False) is None  # a worker from before block reports
    assert turns.heard_block("done x 1 2", False) is None
    assert turns.heard_block("done 0.5 0.25 5", True) == turns.Block(0.5, 0.25, 5, True)


def test_the_pairing_is_checked_before_the_first_pair() -> None:
    with pytest.raises(ValueError, match="pairing must be one of turns, sequential, resident"):
        Design(pairing="together")
    with pytest.raises(ValueError, match="turn_ticks must be a whole number"):
        Design(turn_ticks=0)
    with pytest.raises(ValueError, match="resident_blocks must be a whole number"):
        Design(pairing="resident", resident_blocks=0)
    assert Design().pairing == "turns"  # what conf/decision/default.yaml also says


# ---------------------------------------------------------------- the real thing


def tiny_deciding_sweep(tmp_path: Path, *more: str) -> tuple[str, ...]:
    """A deciding sweep of torch against Keras on torch (no TensorFlow start-up), one pair of
    8-step one-core fresh runs in turns of 3 ticks (the experiment's own pairing is resident),
    under its own lock and folder; `more` adds to it."""
    return (
        "+experiment=compare", "backend=torch,keras_torch", "cpus=1", "max_steps=8",
        "repeats=1", "certify=false", "measure.peak_probe=false", "measure.warmup_steps=2",
        "hydra.sweeper.decision.pairing=turns", "+hydra.sweeper.decision.turn_ticks=3",
        f"measure.lock_file={tmp_path}/lock",
        f"hydra.sweep.dir={tmp_path}/sweep", *more,
    )  # fmt: skip


@pytest.mark.slow
def test_a_deciding_sweep_in_turns_keeps_whole_records_and_says_it_took_turns(
    tmp_path: Path,
) -> None:
    from tests.conftest import run_cli

    proc = run_cli(*tiny_deciding_sweep(tmp_path))
    assert proc.returncode == 0, proc.stderr[-3000:]
    # the first screen's design line names the pairing and the turn length
    assert "design: fresh-process pairs in turns of 3 steps" in proc.stdout
    records = [json.loads(p.read_text()) for p in sorted(tmp_path.rglob("result.json"))]
    assert len(records) == 2 and all(r["status"] == "ok" for r in records)
    for path, r in zip(sorted(tmp_path.rglob("result.json")), records, strict=True):
        assert r["turns"]["turns"] >= 2 and r["turns"]["paused_s"] > 0
        assert r["steps_per_epoch"] == 8 and len(r["epoch_times_s"]) == 2  # every step timed
        # A handover falls after every third tick; had the wait been left in, the step after it
        # would carry the gap and the partner's three steps (4x a step or more).
        per_epoch = json.loads((path.parent / r["steps_file"]).read_text())["per_epoch"]
        after_handover, others, k = [], [], 0
        for durations in per_epoch:
            for j, d in enumerate(durations):
                if j > 0:  # an epoch's first step counts from its start (and may compile)
                    (after_handover if k % 3 == 0 else others).append(d)
                k += 1
        assert statistics.median(after_handover) < 2 * statistics.median(others), per_epoch
    decisions = json.loads((tmp_path / "sweep" / "decisions.json").read_text())
    assert decisions["design"]["pairing"] == "turns"
