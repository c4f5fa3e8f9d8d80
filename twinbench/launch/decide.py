"""Decisions inside an interleaved sweep: each series of pairs stops once it has its answer.

A series is what a pair's runs share (the sweep's configuration but the framework, e.g. one core
count). After each pair the series' time ratio A/B (A: the report's reference framework) goes to
twinbench.sequential, whose confidence sequence stays valid however often it is looked at. A
series that has decided, or spent its budget (pairs or seconds of its own pairs, or the sweep's
seconds shared by all its series), gets no more pairs, and the sweeper drops its remaining
rounds. The wall-time ratio (the runs' median steady steps) decides by default; the training
CPU-time ratio is followed beside it and reported, and `measure: cpu`
(conf/decision/default.yaml) makes it the one that decides.

decisions.json in the sweep directory keeps every series' pairs, both ratios and its decision.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from frameworks.registry import REPORT_REFERENCE
from twinbench.sequential import FAILED_IN_A_ROW, Decision, Design, decide_sequence

DECISIONS_FILE = "decisions.json"
# What a resumed sweep (Tracker.resume) must share with the run it goes on from: what a pair
# measures (the pairing and its turns, blocks and warm-up) and how the pairs are judged (margin,
# error rate, measure, the sequence's prior). The rest may change: a confidence sequence holds
# at whatever pair it is read, so budgets and stopping rules keep it valid, and the projections
# only word an undecided verdict.
RESUME_MUST_MATCH = ("margin", "alpha", "measure", "min_pairs", "prior_precision", "pairing",
                     "turn_ticks", "turn_gap_s", "resident_blocks", "warmup_ticks")  # fmt: skip


def training_cpu_s(record: dict[str, Any]) -> float | None:
    """The CPU seconds of a run's training steps, validation left out, as the wall measure
    (steady steps) leaves it out; records from before 2026-12-02 have only the whole epochs'."""
    used = record.get("resources") or {}
    return used.get("cpu_time_training_steps_s") or used.get("cpu_time_training_s")


def pair_value(record: dict[str, Any], measure: str) -> float | None:
    """What a run contributes to its pair's ratio: the median steady step (wall) or the CPU
    seconds of its training (cpu); None for a failed run or a missing figure."""
    if record.get("status") != "ok":
        return None
    if measure == "wall":
        value = ((record.get("timing") or {}).get("steady_step_s") or {}).get("median")
    else:
        value = training_cpu_s(record)
    return float(value) if value and value > 0 else None


@dataclass
class Series:
    """One series' pairs so far, and its decision once it has one."""

    label: str
    design: Design
    max_pairs: int  # the design's, or the sweep's repeats where those are fewer
    a: str | None = None
    b: str | None = None
    ratios: dict[str, list[float]] = field(default_factory=lambda: {"wall": [], "cpu": []})
    incomplete: int = 0  # pairs with a failed or missing half
    failed_in_a_row: int = 0  # the latest pairs with a failed or missing half, in a row
    seconds: float = 0.0
    decision: Decision | None = None
    floor: str | None = None  # the cached noise floor, as one line (twinbench/measure/noise.py)
    pool_spent: bool = False  # the sweep's shared seconds (design.total_seconds) are gone
    rounds: list[int] = field(default_factory=list)  # resident: block rounds in each unit

    @staticmethod
    def ordered(names: Any) -> list[str]:
        """The two backends as A/B: the report's reference first."""
        return sorted(names, key=lambda n: (n != REPORT_REFERENCE, n))

    def add_unit(
        self, names: list[str], ratios: dict[str, float] | None, rounds: int, seconds: float
    ) -> None:
        """One resident worker pair's unit (twinbench/launch/resident.py): its ratios A/B per
        measure, already oriented as `names` (A, B), or None for a worker pair with no whole
        round (dropped, counted as incomplete); how long the pair took."""
        self.seconds += seconds
        if ratios is None or any(m not in ratios for m in self.ratios):
            return self._failed()
        self.failed_in_a_row = 0
        self.a, self.b = names
        for m in self.ratios:
            self.ratios[m].append(ratios[m])
        self.rounds.append(rounds)
        self._settle()

    def add(self, records: dict[str, dict[str, Any]], seconds: float) -> None:
        """One pair's records by backend, and how long the pair took."""
        self.seconds += seconds
        names = self.ordered(records)
        if len(names) != 2:
            return self._failed()
        self.a, self.b = names
        values = {
            m: (pair_value(records[self.a], m), pair_value(records[self.b], m)) for m in self.ratios
        }
        if any(x is None for v in values.values() for x in v):
            return self._failed()
        self.failed_in_a_row = 0
        for m, (x, y) in values.items():
            self.ratios[m].append(x / y)
        self._settle()

    def _failed(self) -> None:
        """A pair with a failed or missing half: dropped, counted, and `max_failed_in_a_row` of
        them in a row stop the series (the runs' own lines and records say what failed)."""
        self.incomplete += 1
        self.failed_in_a_row += 1
        self._settle()

    @property
    def out_of(self) -> str | None:
        """The budget this series has spent, or the failures that stopped it (None: it may run
        another pair)."""
        d = self.design
        if self.failed_in_a_row >= d.max_failed_in_a_row:
            return FAILED_IN_A_ROW
        if self.pool_spent:
            return "total_seconds"
        if d.max_seconds is not None and self.seconds >= d.max_seconds:
            return "max_seconds"
        attempts = len(self.ratios[d.measure]) + self.incomplete
        return "max_pairs" if attempts >= self.max_pairs else None

    def _settle(self) -> None:
        ratios, out_of = self.ratios[self.design.measure], self.out_of
        if not ratios:
            return
        current = decide_sequence(ratios, self.design, out_of, self.seconds)
        if current.outcome != "undecided" or out_of:
            self.decision = current

    @property
    def done(self) -> bool:
        # With no pair complete a series can still be out of budget: it is done, undecided.
        return self.decision is not None or self.out_of is not None

    def line(self) -> str:
        if self.decision is None:
            stopped = (
                "; stopped by pairs that failed in a row" if self.out_of == FAILED_IN_A_ROW else ""
            )
            return f"{self.label}: no complete pair ({self.incomplete} incomplete{stopped})"
        text = f"{self.label}: {self.decision.line(self.a or 'A', self.b or 'B')}"
        other = "cpu" if self.design.measure == "wall" else "wall"
        beside = self.ratios[other]
        if beside:
            o = decide_sequence(beside, self.design, self.decision.stopped_by)
            what = "training CPU time" if other == "cpu" else "wall time"
            text += (
                f"\n    {what} {self.a}/{self.b} {o.interval()} over the same pairs (reported "
                f"beside it, not deciding)"
            )
        if self.incomplete:
            text += f"\n    {self.incomplete} pair(s) with a failed half left out"
        text += f"\n    design: {self.design_words()}"
        if self.floor:
            text += f"\n    {self.floor}"
        return text

    def design_words(self) -> str:
        """The design that decided, its unit, and what it leaves out, in one line."""
        d = self.design.described()
        return f"{d['name']}; unit: {d['unit']}; leaves out {d['leaves_out']}"

    def as_dict(self) -> dict[str, Any]:
        return {
            "series": self.label,
            "design": self.design.described(),
            "rounds": self.rounds,
            "a": self.a,
            "b": self.b,
            "wall_ratios": self.ratios["wall"],
            "cpu_ratios": self.ratios["cpu"],
            "incomplete": self.incomplete,
            "failed_in_a_row": self.failed_in_a_row,
            "seconds": self.seconds,
            "max_pairs": self.max_pairs,
            "pool_spent": self.pool_spent,
            "noise_floor": self.floor,
            "decision": None if self.decision is None else self.decision.as_dict(),
        }

    def restore(self, saved: dict[str, Any]) -> None:
        """Go on from this series' entry in an earlier decisions.json (a resumed sweep): its
        pairs and seconds, judged again under this sweep's budgets. Failures in a row start
        again from zero: whatever failed may have been fixed before the re-run."""
        self.a, self.b = saved.get("a"), saved.get("b")
        self.ratios = {"wall": list(saved["wall_ratios"]), "cpu": list(saved["cpu_ratios"])}
        self.incomplete, self.seconds = int(saved["incomplete"]), float(saved["seconds"])
        self.rounds = list(saved.get("rounds") or [])
        self.failed_in_a_row, self.decision, self.pool_spent = 0, None, False
        self._settle()


def counted_pairs(entry: dict[str, Any]) -> int:
    """The pair slots a series' entry in decisions.json has used: its complete pairs and those
    that lost a half. A resumed sweep skips this many; its plan line counts them too."""
    return len(entry.get("wall_ratios") or []) + int(entry.get("incomplete") or 0)


class Tracker:
    """Every series of a deciding sweep, keyed by what its pairs share."""

    def __init__(self, design: Design, say: Callable[[str], None] = print) -> None:
        self.design = design
        self.say = say
        self.series: dict[tuple[str, ...], Series] = {}

    def open(self, key: tuple[str, ...], label: str, repeats: int) -> Series:
        if key not in self.series:
            budget = min(self.design.max_pairs, repeats)
            self.series[key] = Series(label, self.design, budget)
        return self.series[key]

    def add(self, key: tuple[str, ...], records: dict[str, dict[str, Any]], seconds: float) -> None:
        self.series[key].add(records, seconds)
        self._after(key)

    def add_unit(
        self,
        key: tuple[str, ...],
        names: list[str],
        ratios: dict[str, float] | None,
        rounds: int,
        seconds: float,
    ) -> None:
        """A resident worker pair's unit (Series.add_unit), then as after any pair."""
        self.series[key].add_unit(names, ratios, rounds, seconds)
        self._after(key)

    def _after(self, key: tuple[str, ...]) -> None:
        s = self.series[key]
        wall = s.ratios[self.design.measure]
        shown = f"ratio {wall[-1]:.3f}" if wall else "incomplete"
        self.say(f"decide: {s.label} pair {len(wall) + s.incomplete}: {shown}")
        if s.done:
            self.say("decide: " + s.line())
        self._share_seconds()

    def _share_seconds(self) -> None:
        """Once the sweep's shared seconds are spent, every undecided series ends there, and so
        does one whose pairs have taken longer on average than the seconds left: its next pair
        would run past the budget the plan line states. A fastText worker pair of 136 s once
        started with 29 s left, and the 300 s sweep ran 6 min 47 s (2026-12-07)."""
        pool = self.design.total_seconds
        if pool is None:
            return
        left = pool - sum(s.seconds for s in self.series.values())
        for s in self.series.values():
            attempts = len(s.ratios[self.design.measure]) + s.incomplete
            typical = s.seconds / attempts if attempts else 0.0
            if not s.done and (left <= 0 or typical > left):
                s.pool_spent = True
                s._settle()
                self.say("decide: " + s.line())

    def done(self, key: tuple[str, ...]) -> bool:
        return self.series[key].done

    def resume(self, sweep_dir: Path) -> dict[tuple[str, ...], int]:
        """Each open series' pairs from the decisions.json an interrupted run of this sweep
        left (none: {}), restored; returns how many pairs per series the sweep must skip. A
        file made under another design is refused (ValueError): its pairs measured something
        else, and their run folders would be mixed with this design's."""
        path = Path(sweep_dir) / DECISIONS_FILE
        if not path.is_file():
            return {}
        try:
            return self._resume(path, json.loads(path.read_text()))
        except (KeyError, TypeError, AttributeError, json.JSONDecodeError) as exc:
            raise ValueError(
                f"{path} cannot be resumed from ({type(exc).__name__}: {exc}): move it aside to "
                "measure this sweep afresh, or choose another hydra.sweep.dir"
            ) from exc

    def _resume(self, path: Path, body: dict[str, Any]) -> dict[tuple[str, ...], int]:
        ours, theirs = json.loads(json.dumps(self.design.__dict__)), body.get("design", {})
        differ = [k for k in RESUME_MUST_MATCH if theirs.get(k) != ours.get(k)]
        if differ:
            raise ValueError(
                f"{path} holds the pairs of another decision design (differs in "
                f"{', '.join(differ)}): resume with the same design, or choose another "
                "hydra.sweep.dir"
            )
        saved = {s["series"]: s for s in body.get("series", [])}
        skip = {}
        for key, series in self.series.items():
            if series.label in saved:
                series.restore(saved[series.label])
                skip[key] = counted_pairs(saved[series.label])
        self._share_seconds()
        return skip

    def write(self, sweep_dir: Path) -> Path:
        """decisions.json, whole or not at all: it is rewritten after every pair, and a sweep
        killed (or out of disk) mid-write left a truncated file that its resume, and the
        analysis of its folder, could not read."""
        path = Path(sweep_dir) / DECISIONS_FILE
        series = [s.as_dict() for s in self.series.values()]
        body = {
            "design": self.design.__dict__,
            "described": self.design.described(),
            "series": series,
        }
        # Not results.write_atomic: its strict JSON (allow_nan=False) would turn a non-finite
        # ratio into a crash mid-sweep, and this file has always kept Python's json defaults.
        tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        try:
            tmp.write_text(json.dumps(body, indent=2))
            os.replace(tmp, path)
        finally:
            tmp.unlink(missing_ok=True)
        return path


def render(sweep_dir: Path) -> str | None:
    """The decisions block for the end of a sweep (None: this sweep did not decide)."""
    path = Path(sweep_dir) / DECISIONS_FILE
    if not path.is_file():
        return None
    body = json.loads(path.read_text())
    d = {"pairing": "sequential", **body["design"]}  # files written before turns existed
    described = Design(**d).described()
    lines = [
        f"decisions ({d['measure']} time decides; margin +-{d['margin']:.0%}, error rate "
        f"{d['alpha']:.0%} with a look after every pair; {described['name']}):"
    ]
    for s in body["series"]:
        design = Design(**d)
        series = Series(s["series"], design, s["max_pairs"], s["a"], s["b"])
        series.ratios = {"wall": s["wall_ratios"], "cpu": s["cpu_ratios"]}
        series.incomplete, series.seconds = s["incomplete"], s["seconds"]
        series.failed_in_a_row = s.get("failed_in_a_row", 0)
        series.pool_spent = bool(s.get("pool_spent"))
        series.floor = s.get("noise_floor")
        series.rounds = list(s.get("rounds") or [])
        series.decision = None if s["decision"] is None else Decision(**s["decision"])
        lines.append("  " + series.line().replace("\n", "\n  "))
    return "\n".join(lines)
