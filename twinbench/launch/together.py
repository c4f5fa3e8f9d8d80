"""Two jobs measured together, taking turns (twinbench/launch/turns.py): the deciding sweep's
pairs, the A/A calibration's and the speed table's (benchmarks/turn_pairs.py) all go through
here.

Each half is the job a launcher would run (twinbench.launch.runner.run_job on its resolved
config and directory: its own fresh workers, its own records), here on its own thread. The
machine's measurement lock is taken once for the two: other sweeps wait for the whole pair.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from twinbench.launch import machine_lock, turns
from twinbench.launch import runner as launch


def lock_key(config: dict[str, Any]) -> str | None:
    """The measurement lock a job's config names (None: allow_parallel, no lock)."""
    if config.get("allow_parallel"):
        return None
    return (config.get("measure") or {}).get("lock_file")


def run_together(
    jobs: list[tuple[dict[str, Any], Path]], ticks: int, gap_s: float
) -> list[list[dict[str, Any]]]:
    """Measure the two (config, directory) jobs at once, in turns of `ticks` timed ticks;
    returns each job's records (an empty list for a half that raised before it had any)."""
    names = tuple(str((body.get("backend") or {}).get("name")) for body, _ in jobs)
    halves = [
        lambda body=body, job_dir=job_dir: launch.run_job(body, job_dir) for body, job_dir in jobs
    ]
    found = run_halves(halves, names, ticks, gap_s, lock_key(jobs[0][0]))
    return [f if f is not None else [] for f in found]


def run_halves(
    halves: list[Callable[[], Any]],
    names: tuple[str, ...],
    ticks: int,
    gap_s: float,
    lock: str | None,
    conductor: turns.Conductor | None = None,
) -> list[Any]:
    """Run the two halves at once, each on its own thread as one side of a pair in turns, under
    the measurement lock `lock` taken once for both; returns what each returned (None for a half
    that raised before it returned). A half starts its process through turns.current(): a
    twinbench job (runner.start_worker) or any program that speaks the protocol
    (frameworks/turns.py), such as the outside code of benchmarks/turn_pairs.py. A resident
    pair (twinbench/launch/resident.py) passes its own `conductor`, to read its blocks after."""
    if conductor is None:
        conductor = turns.Conductor(names, ticks, gap_s)  # type: ignore[arg-type]
    found: dict[int, Any] = {}

    def half(i: int, run: Callable[[], Any]) -> None:
        with machine_lock.held_for(lock), turns.taking_part(conductor.sides[i]):
            try:
                found[i] = run()
            except BaseException as exc:  # raised again on the caller's thread
                conductor.error = conductor.error or exc

    threads = [threading.Thread(target=conductor.conduct, daemon=True)] + [
        threading.Thread(target=half, args=(i, run), daemon=True) for i, run in enumerate(halves)
    ]
    with machine_lock.measurement_lock(lock):
        for t in threads:
            t.start()
        try:
            for t in threads:
                while t.is_alive():
                    t.join(0.2)  # short joins: a stop signal reaches this thread in between
        except BaseException:  # Ctrl-C, SIGTERM: both workers die, no record is written
            conductor.abort()
            for t in threads:
                t.join(5)
            raise
    if conductor.error is not None:  # disk full, or a failure of twinbench's own code
        raise conductor.error
    return [found.get(i) for i in range(len(halves))]
