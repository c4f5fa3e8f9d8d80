"""Repeats that adapt to the noise: measure until the median's interval is narrow enough.

With `repeats=auto` a job keeps starting fresh workers (one measurement each, as `repeats=N`
does) until the 95% interval of the repeats' steady-step medians is at most
`measure.target_rel_width` (0.02) times their median, or a budget runs out:
`measure.max_repeats` measurements, `measure.max_seconds` of wall time. Never fewer than
MIN_REPEATS, the fewest whose [min, max] reaches 95% coverage. summary.json says which ended it
(`stopped_by`: `target`, `max_repeats`, `max_seconds`, or `no_steady_state` after the first
repeat when the run is too short for its warm-up, which no repeat of the same run can change;
`outcome`: the line printed, "reached width X" or "budget exhausted at width Y") and whether
the runs fall into two modes (`modes`), in which case their median, and any width reached,
describe neither mode.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from twinbench import stats
from twinbench.config.spec import ConfigError, RunSpec

MIN_REPEATS = 6  # 1 - 2 * 0.5**6 = 96.9%: below six, no order-statistic interval reaches 95%


@dataclass(frozen=True)
class Plan:
    target_rel_width: float
    min_repeats: int
    max_repeats: int
    max_seconds: float | None


def plan(spec: RunSpec) -> Plan | None:
    """The adaptive plan `repeats=auto` asks for (None: a fixed number of repeats)."""
    if not spec.auto_repeats:
        return None
    m = spec.measure
    target = m.get("target_rel_width")
    if isinstance(target, bool) or not isinstance(target, (int, float)) or not 0 < target < 1:
        raise ConfigError(
            f"measure.target_rel_width must be a fraction of the median between 0 and 1 "
            f"(e.g. 0.02) with repeats=auto, got {target!r}"
        )
    most = m.get("max_repeats")
    if isinstance(most, bool) or not isinstance(most, int) or most < MIN_REPEATS:
        raise ConfigError(
            f"measure.max_repeats must be a whole number of at least {MIN_REPEATS} with "
            f"repeats=auto (fewer never reach a 95% interval), got {most!r}"
        )
    seconds = m.get("max_seconds")
    if seconds is not None and (
        isinstance(seconds, bool) or not isinstance(seconds, (int, float)) or seconds <= 0
    ):
        raise ConfigError(f"measure.max_seconds must be a positive number or null, got {seconds!r}")
    return Plan(float(target), MIN_REPEATS, most, None if seconds is None else float(seconds))


def width(records: list[dict[str, Any]]) -> float | None:
    """Relative width of the interval of the ok repeats' steady-step medians (None: < 2)."""
    steady = [r["timing"]["steady_step_s"]["median"] for r in records if has_steady(r)]
    return stats.summarize(steady).rel_ci_width if len(steady) >= 2 else None


def has_steady(record: dict[str, Any]) -> bool:
    """An ok run with a steady figure (none: too short for its warm-up, its flags say)."""
    return record["status"] == "ok" and bool((record.get("timing") or {}).get("steady_step_s"))


def measure_until_stable(
    p: Plan,
    measure: Callable[[int], dict[str, Any]],
    now: Callable[[], float] = time.monotonic,
    say: Callable[[str], None] = print,
) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """Call `measure(i)` for i = 0, 1, ... until the plan is met; the records and why it ended."""
    start = now()
    records: list[dict[str, Any]] = []
    stopped_by = "max_repeats"
    while len(records) < p.max_repeats:
        records.append(measure(len(records)))
        reached = width(records)
        ok = sum(r["status"] == "ok" for r in records)
        if ok and not any(has_steady(r) for r in records):
            stopped_by = "no_steady_state"  # every repeat is the same run: none would have one
            break
        if ok >= p.min_repeats and reached is not None and reached <= p.target_rel_width:
            stopped_by = "target"
            break
        if p.max_seconds is not None and now() - start >= p.max_seconds:
            stopped_by = "max_seconds"
            break
        shown = "n/a" if reached is None else f"{reached:.1%}"
        say(
            f"  adaptive: {len(records)} repeats, interval {shown} of the median (target "
            f"{p.target_rel_width:.1%}, at least {p.min_repeats} repeats)"
        )
    info = {
        "target_rel_width": p.target_rel_width,
        "min_repeats": p.min_repeats,
        "max_repeats": p.max_repeats,
        "max_seconds": p.max_seconds,
        "stopped_by": stopped_by,
        "reached_rel_width": width(records),
        "repeats": len(records),
        "elapsed_s": now() - start,
    }
    info["outcome"] = outcome(info)
    say(f"  adaptive: {info['outcome']}")
    return records, info


def outcome(info: dict[str, Any]) -> str:
    """One line: the target reached, or which budget ran out and the width it left."""
    reached = info["reached_rel_width"]
    shown = "n/a" if reached is None else f"{reached:.1%}"
    n = info["repeats"]
    if info["stopped_by"] == "no_steady_state":
        return (
            f"no steady figure after {n} repeat(s): the run is too short for its warm-up (its "
            "flags say what would leave one), and more repeats of it cannot narrow an interval"
        )
    if info["stopped_by"] == "target":
        return (
            f"reached width {shown} of the median (target {info['target_rel_width']:.1%}) "
            f"after {n} repeats"
        )
    budget = (
        f"max_repeats={info['max_repeats']}"
        if info["stopped_by"] == "max_repeats"
        else f"max_seconds={info['max_seconds']:g}"
    )
    return (
        f"budget exhausted ({budget}) at width {shown} of the median, above the target "
        f"{info['target_rel_width']:.1%}, after {n} repeats: more repeats or a quieter machine"
    )
