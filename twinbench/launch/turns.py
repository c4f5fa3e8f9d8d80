"""A pair whose two halves run at once and take turns: the sweep's side (frameworks/turns.py is
the worker's).

Sequential pairs (one fresh worker, then the other) land in different phases of the host's
memory bandwidth, seconds long, and their ratios spread by 20-40% on a shared machine. Here both
workers of a pair are alive together, pinned to the same cores, and the conductor hands out
turns: a block of `ticks` ticks to A, then B, then B, then A (ABBA, so neither always goes
first), with `gap_s` between turns so the waiting side's spinning threads have stopped. Only one
computes at a time, and both halves' steps fall in the same seconds.

What stays as in a sequential pair: each half is a fresh worker with its budget set before its
framework loads and read back, its own record, its own run directory. Start-ups do not overlap:
B is spawned only once A waits for its first turn (so each fresh run's recorded start-up is its
own; resident worker pairs, which compare no start-up, start both at once: `start_together`).
What follows training (probes, the record)
runs alone too: a worker that has trained its last step waits until its partner has as well, and
the two are then let go one after the other.
"""

from __future__ import annotations

import contextlib
import contextvars
import os
import queue
import signal
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

from frameworks.turns import TURNS_ENV

_current: contextvars.ContextVar[Side | None] = contextvars.ContextVar("turn_side", default=None)

GONE = None  # what a side's inbox holds once its worker's pipe is closed (or it never started)


@dataclass
class Side:
    """One half of the pair: its pipes, its process, and what its worker has said."""

    name: str
    may_spawn: threading.Event = field(default_factory=threading.Event)
    said: queue.Queue = field(default_factory=queue.Queue)
    to_worker: Any = None
    proc: Any = None
    aborted: bool = False  # the sweep was stopped while this side ran
    _child_fds: tuple[int, int] | None = None
    _closed: bool = False

    def spawn_env(self) -> tuple[dict[str, str], tuple[int, int]]:
        """Wait until this side may start, then make its pipes: the environment entry and the
        descriptors the worker inherits."""
        self.may_spawn.wait()
        down_r, down_w = os.pipe()  # sweep -> worker
        up_r, up_w = os.pipe()  # worker -> sweep
        self.to_worker = os.fdopen(down_w, "w")
        self._child_fds = (down_r, up_w)
        threading.Thread(target=self._listen, args=(up_r,), daemon=True).start()
        return {TURNS_ENV: f"{down_r},{up_w}"}, self._child_fds

    def spawned(self, proc: Any) -> None:
        """After the worker started: the sweep keeps only its own ends of the pipes."""
        self.proc = proc
        for fd in self._child_fds or ():
            os.close(fd)
        self._child_fds = None

    def _listen(self, fd: int) -> None:
        with os.fdopen(fd, "r") as pipe:
            for line in pipe:
                self.said.put(line.strip())
        self.said.put(GONE)

    def finished(self) -> None:
        """The run of this side is over (or never started a worker): nobody will speak."""
        if self._child_fds is not None:  # spawning failed after the pipes were made
            for fd in self._child_fds:
                os.close(fd)
            self._child_fds = None
        if self.proc is None:
            self.said.put(GONE)

    def tell(self, word: str) -> bool:
        """Send one line; False when the worker has gone."""
        if self.to_worker is None or self._closed:
            return False
        try:
            self.to_worker.write(word + "\n")
            self.to_worker.flush()
            return True
        except (BrokenPipeError, OSError, ValueError):
            return False

    def close(self) -> None:
        """No more turns: the worker, reading end of file, trains on without waiting."""
        self._closed = True
        if self.to_worker is not None:
            with contextlib.suppress(OSError, ValueError):
                self.to_worker.close()

    def kill(self) -> None:
        if self.proc is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.proc.pid, signal.SIGKILL)


@dataclass(frozen=True)
class Block:
    """One turn's block as its worker timed it (frameworks/turns.py `done`), waits left out."""

    wall_s: float
    cpu_s: float
    ticks: int
    warmup: bool  # the side's first turn: first step, tracing, cold caches; never compared


def heard_block(word: str, warmup: bool) -> Block | None:
    """The block a `done <wall> <cpu> <ticks>` line reports (None: a bare `done`, or not one)."""
    parts = word.split()
    if len(parts) != 4 or parts[0] != "done":
        return None
    try:
        return Block(float(parts[1]), float(parts[2]), int(parts[3]), warmup)
    except ValueError:
        return None


@dataclass
class Conductor:
    """Hands out the turns of one pair (see the module's docstring)."""

    names: tuple[str, str]  # labels only (an A/A pair may name one backend twice)
    ticks: int
    gap_s: float
    # Resident worker pairs (twinbench/launch/resident.py): each side's first turn is a warm-up
    # of this many ticks, its block kept apart from the compared ones (0: no warm-up turn).
    warmup_ticks: int = 0
    # Both workers start up at once (resident worker pairs): neither's start-up is compared, so
    # the second need not wait for the first to be ready. Their blocks still never overlap.
    start_together: bool = False
    sides: list[Side] = field(default_factory=list)
    state: list[str] = field(default_factory=list)  # starting/training/alone/ended/gone
    turns: int = 0
    turns_of: list[int] = field(default_factory=lambda: [0, 0])  # per side
    blocks: list[list[Block]] = field(default_factory=list)  # per side, in the order trained
    error: BaseException | None = None
    aborted: bool = False

    def __post_init__(self) -> None:
        self.sides = [Side(n) for n in self.names]
        self.state = ["starting" for _ in self.names]
        self.blocks = [[] for _ in self.names]
        self.sides[0].may_spawn.set()
        if self.start_together:
            self.sides[1].may_spawn.set()

    def _hear(self, i: int) -> str | None:
        word = self.sides[i].said.get()
        if word is GONE:
            self.state[i] = "gone"
        elif word == "end":
            self.state[i] = "ended"
        elif word == "ready":
            self.state[i] = "training"
        return word

    def conduct(self) -> None:
        """Runs on its own thread until both workers have trained and been let go."""
        try:
            self._hear(0)  # A's start-up ran (alone, unless start_together); it now waits
            self.sides[1].may_spawn.set()  # so B starts up alone too
            self._hear(1)
            order, last = (0, 1), None
            while "training" in self.state:
                for i in order:
                    if self.state[i] != "training":
                        continue
                    if self.state[1 - i] != "training":  # alone from here: no more turns
                        self.sides[i].tell("go")
                        self.state[i] = "alone"
                        continue
                    if last is not None and last != i:
                        time.sleep(self.gap_s)
                    warmup = self.warmup_ticks > 0 and self.turns_of[i] == 0
                    if not self.sides[i].tell(f"go {self.warmup_ticks if warmup else self.ticks}"):
                        self.state[i] = "gone"
                        continue
                    self.turns += 1
                    self.turns_of[i] += 1
                    last = i
                    word = self._hear(i)  # "done ...", "end", or gone
                    block = heard_block(word or "", warmup)
                    if block is not None:
                        self.blocks[i].append(block)
                order = order[::-1]  # ABBA: who goes first alternates by round
            for i in (0, 1):  # the lone trainer finishes, probes and record included
                if self.state[i] == "alone":
                    while self._hear(i) is not GONE:
                        pass
            for i in (0, 1):  # then each one that waited after its last step, in turn
                if self.state[i] == "ended":
                    self.sides[i].tell("go")
                    while self._hear(i) is not GONE:
                        pass
        except BaseException as exc:  # never leave a worker blocked on its pipe
            self.error = exc
        finally:
            for side in self.sides:
                side.may_spawn.set()
                side.close()

    def abort(self) -> None:
        """Ctrl-C or a stop signal in the sweep: kill both workers; no record is written."""
        self.aborted = True
        for side in self.sides:
            side.aborted = True
            side.may_spawn.set()
            side.kill()
            side.said.put(GONE)


def current() -> Side | None:
    """The side this thread's worker belongs to (None: a run alone)."""
    return _current.get()


@contextlib.contextmanager
def taking_part(side: Side) -> Iterator[None]:
    """Run the block (one half's run_job) as `side`; the side is finished when it ends."""
    token = _current.set(side)
    try:
        yield
    finally:
        side.finished()
        _current.reset(token)
