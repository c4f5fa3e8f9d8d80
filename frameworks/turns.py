"""Worker side of a pair that takes turns: train a block of steps, then wait for the partner.

In a deciding sweep with `pairing: turns` (conf/decision/default.yaml) both halves of a pair run
at once, each in its own fresh worker on the same cores, and the sweep hands out turns
(twinbench/launch/turns.py): one worker trains a block of ticks while the other waits, blocked on
a pipe. Both halves' steps then fall in the same seconds of the host's slow memory-bandwidth
phases, which sequential pairs cannot share (docs/findings/2026-12-01-pairs-in-turns.md).

The clock leaves the waits out: every timestamp RunClock takes is its clock minus the time spent
waiting so far, so step, epoch and CPU figures cover training only. Without the environment
variable nothing here runs and the clock is the plain clock.

The protocol, one line each way: the worker says `ready` before its first step, `done <wall s>
<cpu s> <ticks>` after each block (the block's own seconds on the clock that leaves the waits
out, which resident worker pairs compare block by block: twinbench/launch/resident.py), and `end`
after its last step; the sweep answers `go N` (train N ticks), or `go`
after `end` (carry on with what follows training, alone). End of file on either side means the
other is gone: the worker then trains on without waiting.
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass, field
from typing import IO, Any

TURNS_ENV = "TWINBENCH_TURNS"  # "<read fd>,<write fd>" of the pipes to the sweep


@dataclass
class Turns:
    """One worker's end of the turn-taking; it counts the ticks and the time it waited."""

    inbox: IO[str]
    outbox: IO[str]
    now_ns: Any = time.perf_counter_ns
    cpu_ns: Any = time.process_time_ns
    paused_ns: int = 0  # wall time spent waiting for turns so far
    paused_cpu_ns: int = 0  # CPU time this process spent while it waited (threads spinning down)
    turns: int = 0
    ticks_left: int | None = 0  # None: no partner any more, train on freely
    waits: list[float] = field(default_factory=list)
    # Where the current block started, on the clocks without the waits, and its ticks so far.
    _block_start: tuple[int, int] = (0, 0)
    _block_ticks: int = 0

    def _say(self, word: str) -> None:
        if self.ticks_left is None:
            return
        try:
            self.outbox.write(word + "\n")
            self.outbox.flush()
        except (BrokenPipeError, OSError):  # the sweep is gone: nobody to wait for
            self.ticks_left = None

    def _wait(self) -> str | None:
        """Block until the sweep answers; the time blocked is added to the pauses."""
        t0, c0 = self.now_ns(), self.cpu_ns()
        line = self.inbox.readline()
        waited = self.now_ns() - t0
        self.paused_ns += waited
        self.paused_cpu_ns += self.cpu_ns() - c0
        self.waits.append(waited / 1e9)
        if not line:
            self.ticks_left = None
            return None
        return line.strip()

    def _take_turn(self) -> None:
        answer = self._wait()
        if answer is None:
            return
        word, _, count = answer.partition(" ")
        if word != "go":
            raise RuntimeError(f"turn-taking: unexpected answer {answer!r} from the sweep")
        self.turns += 1
        self.ticks_left = int(count) if count else None
        self._block_start = (self.now_ns() - self.paused_ns, self.cpu_ns() - self.paused_cpu_ns)
        self._block_ticks = 0

    def begin(self) -> None:
        """Before the first step: wait for the first turn."""
        if self.turns == 0 and self.ticks_left == 0:
            self._say("ready")
            self._take_turn()

    def tick(self) -> None:
        """After each tick: hand the turn over once this block's ticks are done."""
        if self.ticks_left is None:
            return
        self.ticks_left -= 1
        self._block_ticks += 1
        if self.ticks_left <= 0:
            wall = self.now_ns() - self.paused_ns - self._block_start[0]
            cpu = self.cpu_ns() - self.paused_cpu_ns - self._block_start[1]
            self._say(f"done {wall / 1e9:.9f} {cpu / 1e9:.9f} {self._block_ticks}")
            self._take_turn()

    def end(self) -> None:
        """After the last step: say so, and wait until the partner's training is over too, so
        what this worker does next (probes, the record) never runs beside its timed steps."""
        if self.ticks_left is None:
            return
        self._say("end")
        if self.ticks_left is not None:
            self._wait()
        self.ticks_left = None

    def summary(self) -> dict[str, Any]:
        """What the record keeps of the turn-taking."""
        return {
            "turns": self.turns,
            "paused_s": round(self.paused_ns / 1e9, 6),
            "paused_cpu_s": round(self.paused_cpu_ns / 1e9, 6),
            "longest_wait_s": round(max(self.waits, default=0.0), 6),
        }


def from_environment(env: dict[str, str] | None = None) -> Turns | None:
    """The worker's turns when the sweep asked for them (None: this run is alone)."""
    value = (os.environ if env is None else env).get(TURNS_ENV)
    if not value:
        return None
    read_fd, write_fd = (int(x) for x in value.split(","))
    return Turns(os.fdopen(read_fd, "r"), os.fdopen(write_fd, "w"))
