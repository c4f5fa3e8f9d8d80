"""Timestamps for epochs and steps. Adapters call these hooks; nothing else happens in them.

Each step's hook is one clock read and one list append, so it costs well under a microsecond and
does not distort what it times; the epoch's hooks add a read of the process' CPU time and
resource usage, between the steps. The clock is injectable so the statistics can be tested exactly.
On a GPU the adapter hands the clock its device's synchronise (`sync`), which every clock read
calls first: a host timestamp taken with kernels still queued would time their launch, not their
work. In a pair that takes turns (frameworks/turns.py) the hooks also hand the turn over at block
boundaries, and every timestamp leaves out the time spent waiting for the partner.
"""

from __future__ import annotations

import resource
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any


def no_sync() -> None:
    """The CPU's sync: its work is done when the call that did it returns."""


def kernel_usage() -> tuple[int, int]:
    """This process' CPU time in the kernel (ns) and its minor page faults so far, all threads.

    Most of a training step's kernel time is the first touch of fresh memory: a large temporary
    that the allocator maps for one step and returns after it faults in again, page by page,
    the next step (docs/findings/2026-12-07-allocator-page-faults.md)."""
    used = resource.getrusage(resource.RUSAGE_SELF)
    return round(used.ru_stime * 1e9), used.ru_minflt


@dataclass
class RunClock:
    now_ns: Callable[[], int] = time.perf_counter_ns
    # The process' CPU time (all its threads), read at epoch boundaries only: the CPU work
    # spent over exactly the spans the epoch times cover.
    cpu_ns: Callable[[], int] = time.process_time_ns
    epoch_cpu_ns: list[tuple[int, int]] = field(default_factory=list)  # (start, end) per epoch
    # (start, start of validation) per epoch: the CPU spans the training parts (train_times_s)
    # cover; the end of the epoch where it did not validate
    train_cpu_ns: list[tuple[int, int]] = field(default_factory=list)
    # (kernel CPU ns, minor page faults) over each epoch's training part, read at the same two
    # points as train_cpu_ns. A run taking turns counts its waits' own (a blocked read a turn).
    kernel: Callable[[], tuple[int, int]] = kernel_usage
    train_kernel: list[tuple[int, int]] = field(default_factory=list)
    epoch_start_ns: list[int] = field(default_factory=list)
    epoch_end_ns: list[int] = field(default_factory=list)
    val_start_ns: list[int] = field(default_factory=list)
    step_end_ns: list[list[int]] = field(default_factory=list)  # per epoch
    steps_per_tick: int = 1  # training steps between two step_end calls (Keras steps_per_execution)
    turns: Any = None  # frameworks.turns.Turns when this run takes turns with a partner
    # The device's synchronise (torch.cuda.synchronize on a GPU), called before every read: a
    # sync point, so the timestamp falls after the queued work, not after its launch.
    sync: Callable[[], None] = no_sync

    def now(self) -> int:
        """The clock after the device's queued work, without the waits for the partner's turns."""
        self.sync()
        return self.now_ns() - (self.turns.paused_ns if self.turns else 0)

    def _cpu(self) -> int:
        return self.cpu_ns() - (self.turns.paused_cpu_ns if self.turns else 0)

    def epoch_begin(self) -> None:
        if self.turns:
            self.turns.begin()  # the first epoch waits for its first turn before it starts
        self.step_end_ns.append([])
        self._kernel_start = self.kernel()
        self._cpu_start_ns = self._cpu()
        self.epoch_start_ns.append(self.now())

    def step_end(self) -> None:
        self.step_end_ns[-1].append(self.now())
        if self.turns:
            self.turns.tick()  # after the timestamp: a wait here is subtracted from the next

    def validation_begin(self) -> None:
        self.val_start_ns.append(self.now())
        self.train_cpu_ns.append((self._cpu_start_ns, self._cpu()))
        self._end_training_part()

    def training_end(self) -> None:
        """After the last epoch: a run taking turns waits for its partner to finish training."""
        if self.turns:
            self.turns.end()

    def epoch_end(self) -> None:
        now, cpu = self.now(), self._cpu()
        if len(self.val_start_ns) < len(self.epoch_start_ns):
            # No validation this epoch (validate_every, or none at all): its training part ends
            # with it, so val_start_ns stays one entry per epoch when only some epochs validate.
            self.val_start_ns.append(now)
            self.train_cpu_ns.append((self._cpu_start_ns, cpu))
            self._end_training_part()
        self.epoch_end_ns.append(now)
        self.epoch_cpu_ns.append((self._cpu_start_ns, cpu))

    def _end_training_part(self) -> None:
        (sys_ns, faults), (sys0, faults0) = self.kernel(), self._kernel_start
        self.train_kernel.append((sys_ns - sys0, faults - faults0))

    # Derived figures, in seconds.
    def epoch_times_s(self) -> list[float]:
        """Whole epochs, validation included: the figure the 2017 benchmark logged."""
        return [(e - s) / 1e9 for s, e in zip(self.epoch_start_ns, self.epoch_end_ns, strict=False)]

    def train_times_s(self) -> list[float]:
        """Training steps of each epoch, up to the start of validation."""
        ends = (
            self.val_start_ns
            if len(self.val_start_ns) == len(self.epoch_start_ns)
            else (self.epoch_end_ns)
        )
        return [(e - s) / 1e9 for s, e in zip(self.epoch_start_ns, ends, strict=False)]

    def busy_cores(self) -> float | None:
        """CPU seconds per wall second over the epochs' own spans: the cores training kept busy.
        None when no epoch finished (nothing was measured)."""
        wall = sum(e - s for s, e in zip(self.epoch_start_ns, self.epoch_end_ns, strict=False))
        cpu = sum(e - s for s, e in self.epoch_cpu_ns)
        return cpu / wall if wall > 0 and self.epoch_cpu_ns else None

    def step_times_ns(self) -> list[list[int]]:
        """Duration of every tick (a step, or steps_per_tick steps); the first of an epoch counts
        from the epoch's start."""
        out = []
        for start, ends in zip(self.epoch_start_ns, self.step_end_ns, strict=False):
            prev, durations = start, []
            for t in ends:
                durations.append(t - prev)
                prev = t
            out.append(durations)
        return out
