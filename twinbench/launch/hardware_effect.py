"""The first screen's hardware effect: per side of a sweep, the speed-up of a steady step from
its fewest cores to its most, paired by round, and what a step costs at the most cores against
the fewest at a price per core.

Every CPU price table of this project (conf/pricing/) is linear in vCPUs, so a step's cost at
`most` cores over its cost at `few` is (most / few) / speed-up whatever the table: above 1, the
extra cores make each step dearer, which is what a person choosing how many cores to pay for
weighs against the time. The screen states it without a currency; the report prices it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from frameworks.registry import REPORT_REFERENCE
from twinbench import stats
from twinbench.ui.cores import count_label


def _step_median(record: dict[str, Any]) -> float | None:
    value = ((record.get("timing") or {}).get("steady_step_s") or {}).get("median")
    return float(value) if isinstance(value, int | float) and value > 0 else None


def _settings(record: dict[str, Any]) -> dict[str, Any]:
    backend = (record.get("config") or {}).get("backend")
    return {k: v for k, v in backend.items() if k != "name"} if isinstance(backend, dict) else {}


def side_of(records: list[dict[str, Any]]) -> Callable[[dict[str, Any]], str]:
    """A record's side of the comparison: its backend, and the backend settings whose values
    differ between the records of that backend (`torch allocator=retain`), so that a sweep of
    one backend at two settings keeps its two sides apart."""
    values: dict[tuple[str, str], set[str]] = {}
    for r in records:
        for key, value in _settings(r).items():
            values.setdefault((str(r.get("backend")), key), set()).add(repr(value))

    def side(record: dict[str, Any]) -> str:
        backend = str(record.get("backend"))
        own = _settings(record)
        varying = [f"{k}={own[k]}" for k in sorted(own) if len(values[(backend, k)]) > 1]
        return " ".join([backend, *varying])

    return side


def hardware_lines(
    records: Iterable[dict[str, Any]], all_cores: int | None, unit: str = "runs"
) -> list[str]:
    """The hardware effect per side (side_of: a backend, or a backend at one setting): its
    fewest cores' steady step over its most cores' (a speed-up: above 1, more cores take less
    time), from hardware_ratio; `unit` names what a record is (a resident pair's record is one
    worker's life)."""
    records = list(records)
    side = side_of(records)
    by_side: dict[str, dict[int, list[tuple[int | None, float]]]] = {}
    for r in records:
        step = _step_median(r) if r.get("status") == "ok" else None
        cores, round_ = r.get("cpus"), r.get("repeat")
        if step is None or not isinstance(cores, int) or r.get("device", "cpu") != "cpu":
            continue
        round_ = round_ if isinstance(round_, int) else None  # a run outside any round
        by_side.setdefault(side(r), {}).setdefault(cores, []).append((round_, step))
    rows = []
    for name in sorted(by_side, key=lambda n: (n != REPORT_REFERENCE, n)):
        counts = by_side[name]
        if len(counts) < 2:
            continue
        few, most = min(counts), max(counts)
        speedup, lo, hi, paired = hardware_ratio(counts[few], counts[most])
        interval = "no interval" if lo is None else f"[{lo:.2f}, {hi:.2f}]"
        if paired:
            how = f"{paired} round{'s' if paired != 1 else ''} paired"
        else:
            how = f"{len(counts[few])} and {len(counts[most])} {unit}, not paired"
        cost = f"cost per step {step_cost(speedup, few, most):.2f}x"
        if lo is not None:
            cost += f" [{step_cost(hi, few, most):.2f}, {step_cost(lo, few, most):.2f}]"
        rows.append((name, f"{speedup:.2f}x {interval}  ({how}); {cost}", few, most))
    if not rows:
        return []
    few, most = rows[0][2], rows[0][3]
    width = max(len(r[0]) for r in rows)
    lines = [
        f"hardware: {count_label(few, all_cores)} to {count_label(most, all_cores)}, "
        f"speed-up of a steady step in this sweep's minutes (above 1: more cores take less "
        f"time; a host's phase moves it between sweeps), per backend; and a step's cost at "
        f"{count_label(most, all_cores)} over {count_label(few, all_cores)} at a price per core "
        f"(above 1: dearer)"
    ]
    lines += [f"  {name:<{width}}  {text}" for name, text, _, _ in rows]
    return lines


def hardware_ratio(
    few: list[tuple[int | None, float]], most: list[tuple[int | None, float]]
) -> tuple[float, float | None, float | None, int]:
    """few / most step times, each with its round (the sweep's repeat slot; None: none):
    (speed-up, low, high, rounds paired). A deciding sweep runs each round's pair at every
    core count back to back (launch/interleave.py), so a round's two core counts are seconds
    apart and a host phase of minutes moves both; their ratio, one value a round, takes
    stats.units_ratio's interval.
    Where fewer than two rounds hold both, the Welch interval of stats.ratio_ci over all the
    records (independent processes, minutes apart) with 0 rounds. One sweep's Welch line read
    1.08x where its rounds read 1.39x, and Welch intervals disagreed with another sweep's in
    27% of comparisons against 18% paired (Intel host, 2026-12-07,
    docs/findings/2026-12-07-hardware-by-round.md)."""
    a = {k: v for k, v in few if k is not None}
    b = {k: v for k, v in most if k is not None}
    common = sorted(set(a) & set(b))
    if len(common) >= 2:
        s = stats.units_ratio([a[k] / b[k] for k in common])
        return s.median, s.ci_low, s.ci_high, len(common)
    speedup, lo, hi = stats.ratio_ci([v for _, v in few], [v for _, v in most])
    return speedup, lo, hi, 0


def step_cost(speedup: float, few: int, most: int) -> float:
    """A step's cost on `most` cores over its cost on `few`, at a price linear in cores: the
    cores bought over the time they save. The interval's ends swap: the highest speed-up gives
    the lowest cost."""
    return (most / few) / speedup
