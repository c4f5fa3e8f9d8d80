"""Seconds in which a training process sits idle while it should be computing.

A pair in turns hands the machine to one side at a time; the other waits on a pipe
(frameworks/turns.py). A side whose turn it is should be using CPU. This samples /proc four times a
second for the processes whose command line matches --match and writes one line per sample: each
process' CPU ticks, the kernel wait channel of its main thread and of every thread. Read back
(--read), it lists the idle stretches: at least --min-s seconds in which a process gained no CPU
while its main thread was not waiting for a turn (not in a pipe read). With --gdb N it attaches
gdb to the first N stalled processes and keeps every thread's native stack (which Python-level
tools cannot show), in files beside --out. Linux only (/proc).

    python -m benchmarks.diagnostics.idle_stretches --out idle.log --seconds 900 [--gdb 2]
    python -m benchmarks.diagnostics.idle_stretches --read idle.log

docs/findings/2026-12-01-speed-table-in-turns.md ("TensorFlow's pauses") used it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

DEFAULT_MATCH = r"benchmarks\.ports\.\w+|twinbench\.worker"
TURN_WAIT = "anon_pipe_read"  # the main thread's wait channel while it waits for its turn
SAMPLE_S = 0.25
IDLE_TICKS = 2  # CPU ticks (1/100 s) a sample may gain and still count as idle


@dataclass(frozen=True)
class Sample:
    t: float
    pid: int
    name: str
    cpu_ticks: int
    main_wait: str  # "0" while running
    threads: str  # "state:wait x count" per kind of thread


def _read(path: str) -> str:
    with open(path) as f:
        return f.read()


def sample(match: re.Pattern[str]) -> list[Sample]:
    """One sample of every matching process (those that vanish meanwhile are skipped)."""
    found = []
    now = time.time()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = _read(f"/proc/{entry}/cmdline").replace("\0", " ")
            m = match.search(cmd)
            if not m or "idle_stretches" in cmd:
                continue
            fields = _read(f"/proc/{entry}/stat").rsplit(")", 1)[1].split()
            ticks = int(fields[11]) + int(fields[12])  # utime + stime
            kinds: dict[str, int] = {}
            for tid in os.listdir(f"/proc/{entry}/task"):
                state = _read(f"/proc/{entry}/task/{tid}/stat").rsplit(")", 1)[1].split()[0]
                wait = "run" if state == "R" else _read(f"/proc/{entry}/task/{tid}/wchan")
                kinds[f"{state}:{wait}"] = kinds.get(f"{state}:{wait}", 0) + 1
            threads = ",".join(f"{k}x{v}" for k, v in sorted(kinds.items()))
            main = _read(f"/proc/{entry}/wchan")
        except (OSError, IndexError, ValueError):
            continue
        found.append(Sample(now, int(entry), m.group(0), ticks, main, threads))
    return found


def line(s: Sample) -> str:
    return f"{s.t:.2f} {s.pid} {s.name} {s.cpu_ticks} {s.main_wait} {s.threads}"


def parse(text: str) -> list[Sample]:
    out = []
    for row in text.splitlines():
        t, pid, name, ticks, main, *threads = row.split(" ")
        out.append(Sample(float(t), int(pid), name, int(ticks), main, " ".join(threads)))
    return out


@dataclass(frozen=True)
class Stretch:
    pid: int
    name: str
    start: float
    seconds: float
    main_wait: str
    threads: str


def stretches(samples: list[Sample], min_s: float = 1.0) -> list[Stretch]:
    """Spans of at least min_s in which a process gained no CPU and did not wait for a turn."""
    by_pid: dict[int, list[Sample]] = {}
    for s in samples:
        by_pid.setdefault(s.pid, []).append(s)
    found = []
    for pid, rows in by_pid.items():
        rows.sort(key=lambda s: s.t)
        start: Sample | None = None
        for a, b in zip(rows, [*rows[1:], None], strict=True):
            idle = (
                b is not None
                and TURN_WAIT not in (a.main_wait, b.main_wait)
                and b.cpu_ticks - a.cpu_ticks <= IDLE_TICKS
            )
            if idle and start is None:
                start = a
            if not idle and start is not None:
                if a.t - start.t >= min_s:
                    found.append(
                        Stretch(pid, a.name, start.t, a.t - start.t, a.main_wait, a.threads)
                    )
                start = None
    return sorted(found, key=lambda s: s.start)


def gdb_stacks(pid: int) -> str:
    """Every thread's native stack (gdb attaches for a moment: the process stops meanwhile)."""
    cmd = ["gdb", "-p", str(pid), "-batch", "-ex", "thread apply all bt 16"]
    return subprocess.run(cmd, capture_output=True, text=True, check=False).stdout


def watch(out: Path, seconds: float, match: re.Pattern[str], gdb: int) -> None:
    last: dict[int, tuple[int, float]] = {}  # pid -> (cpu ticks, since when)
    dumped: set[int] = set()
    deadline = time.time() + seconds
    with out.open("a") as log:
        while time.time() < deadline:
            for s in sample(match):
                log.write(line(s) + "\n")
                ticks, since = last.get(s.pid, (s.cpu_ticks, s.t))
                if s.main_wait == TURN_WAIT or s.cpu_ticks - ticks > IDLE_TICKS:
                    last[s.pid] = (s.cpu_ticks, s.t)
                    continue
                last.setdefault(s.pid, (ticks, since))
                if s.t - since >= 2.0 and s.pid not in dumped and len(dumped) < gdb:
                    dumped.add(s.pid)
                    stacks = out.with_name(f"{out.stem}-gdb-{s.pid}.txt")
                    stacks.write_text(f"{s.name} idle {s.t - since:.1f} s\n{gdb_stacks(s.pid)}")
            log.flush()
            time.sleep(SAMPLE_S)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", type=Path, help="append samples to this file")
    p.add_argument("--seconds", type=float, default=600.0)
    p.add_argument("--match", default=DEFAULT_MATCH, help="regex on the command line")
    p.add_argument("--gdb", type=int, default=0, help="native stacks of the first N stalls")
    p.add_argument("--read", type=Path, help="list the idle stretches of a file --out wrote")
    p.add_argument("--min-s", type=float, default=1.0)
    args = p.parse_args(argv)
    if args.read:
        for s in stretches(parse(args.read.read_text()), args.min_s):
            when = time.strftime("%H:%M:%S", time.gmtime(s.start))
            print(
                f"{when} UTC {s.name} pid {s.pid}: idle {s.seconds:.1f} s, main thread in "
                f"{s.main_wait}; threads {s.threads}"
            )
        return 0
    if args.out is None:
        p.error("give --out (to sample) or --read (to list idle stretches)")
    watch(args.out, args.seconds, re.compile(args.match), args.gdb)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
