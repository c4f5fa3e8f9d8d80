"""The order of a sweep's measurements: frameworks side by side, repeat by repeat.

A sweep `backend=torch,tensorflow model=mlp repeats=6` would otherwise measure all six torch
repeats, then all six TensorFlow ones; whatever the machine did in between (a neighbour's job,
the frequency of the hour) then lands on one framework alone and reads as its speed. Here every
repeat of a sweep is its own job, and the jobs run round by round: round r measures repeat r of
every configuration, the configurations that differ only in the framework one right after the
other (a *pair*, or a triple with three frameworks), and the framework that goes first rotates
from round to round, so neither always meets a warmer or a colder machine. The ratio of a pair's
two runs cancels what they shared (analysis/compute/paired.py).

Jobs with `repeats=auto` cannot be split (their count is known only at the end); they run in the
first round, whole, as before.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

SLOT_KEY = "repeat_slot"  # the job override that makes a job measure one repeat of its config


@dataclass(frozen=True)
class Job:
    overrides: tuple[str, ...]
    repeats: int | None  # None: repeats=auto, measured whole


def splits_repeats(config: Any) -> bool:
    """Whether this sweep runs every repeat as its own job: under the interleaved sweeper and a
    launcher that runs jobs one after another (Hydra's basic one). A launcher that runs jobs at
    once (submitit on Slurm) decides their order itself, so there a configuration's repeats stay
    in one job, measured back to back as with `hydra/sweeper=basic`."""
    from omegaconf import OmegaConf

    sweeper = str(OmegaConf.select(config, "hydra.sweeper._target_", default=""))
    launcher = str(OmegaConf.select(config, "hydra.launcher._target_", default=""))
    return sweeper.endswith("InterleavedSweeper") and launcher.endswith(".BasicLauncher")


def is_framework_override(override: str) -> bool:
    key = override.split("=", 1)[0].lstrip("+~")
    return key == "backend" or key.startswith("backend.")


def pair_group(overrides: tuple[str, ...]) -> tuple[str, ...]:
    """What a job shares with its partners: every override but the framework's."""
    return tuple(sorted(o for o in overrides if not is_framework_override(o)))


def side_names(batch: list[list[str]]) -> list[str]:
    """Each job of a pair named by the framework overrides that tell it from its partner: its
    backend (`torch`) where the backends differ, else its setting (`allocator=retain`). Pairs
    of one backend at two values of a setting were named by the backend alone, both halves the
    same name, and each pair's ratio took whichever half ran first as A (2026-12-07)."""
    sides = [[o.lstrip("+~") for o in job if is_framework_override(o)] for job in batch]
    common = set.intersection(*(set(side) for side in sides)) if sides else set()
    return [
        " ".join(
            o.removeprefix("backend=").removeprefix("backend.") for o in side if o not in common
        )
        for side in sides
    ]


def interleave(jobs: list[Job]) -> list[list[str]]:
    """Every repeat of every job as its own job's overrides (`repeat_slot=r` added), in the
    order described above; groups keep the order of their first job."""
    groups: dict[tuple[str, ...], list[Job]] = {}
    for job in jobs:
        groups.setdefault(pair_group(job.overrides), []).append(job)
    rounds = max((j.repeats or 1 for j in jobs), default=0)
    order: list[list[str]] = []
    for r in range(rounds):
        for members in groups.values():
            turn = r % len(members)  # rotate who goes first: torch, tf / tf, torch / ...
            for job in members[turn:] + members[:turn]:
                if job.repeats is None:
                    if r == 0:
                        order.append(list(job.overrides))
                elif r < job.repeats:
                    order.append([*job.overrides, f"{SLOT_KEY}={r}"])
    return order
