"""How a job's repeats are measured: one strategy per job, chosen once from its config.

    Fixed     repeats=N: N fresh workers back to back (run_dir, or run_dir/repeat-<i> when N > 1)
    Slot      repeat_slot=r, set by the interleaving sweeper (interleave.py): repeat r alone, in
              run_dir/repeat-<r>; the job whose slot completes the set writes the summary
    Adaptive  repeats=auto: repeat until the interval is narrow or a budget runs out (adaptive.py)

run_job (runner.py) builds the measurement of one repeat (a fresh worker, reuse, the lock) and
hands it to the strategy; the strategy decides which repeats to measure, where, and when the
job's summary.json is written. Every strategy returns the records it measured, one per repeat.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from twinbench.config.spec import RunSpec
from twinbench.launch import adaptive, failed
from twinbench.launch.interleave import SLOT_KEY
from twinbench.result import results

SUMMARY_FILE = "summary.json"
PAIR_SERIES_CHARS = 12  # enough of a sha256 to tell a machine's sweeps apart

Record = dict[str, Any]
# Measure repeat i in rep_dir (a pair id when its partners are measured in the same round).
MeasureRepeat = Callable[[int, Path, "str | None"], Record]


class Strategy(Protocol):
    def measure(self, run_dir: Path, measure_repeat: MeasureRepeat) -> list[Record]: ...


def choose(spec: RunSpec, config: dict[str, Any]) -> Strategy:
    """The strategy this job's config asks for. Raises ConfigError for bad adaptive settings
    (checked even for a slot job, so a bad config fails the same way whichever sweeper ran it)."""
    plan = adaptive.plan(spec)
    slot = config.get(SLOT_KEY)
    if slot is not None:
        return Slot(spec, config, slot)
    if plan is not None:
        return Adaptive(plan)
    return Fixed(spec.repeats)


def repeat_dirs(run_dir: Path, repeats: int) -> list[Path]:
    return [run_dir] if repeats == 1 else [run_dir / f"repeat-{i}" for i in range(repeats)]


@dataclass(frozen=True)
class Fixed:
    repeats: int

    def measure(self, run_dir: Path, measure_repeat: MeasureRepeat) -> list[Record]:
        dirs = repeat_dirs(run_dir, self.repeats)
        records = [measure_repeat(i, d, None) for i, d in enumerate(dirs)]
        if self.repeats > 1:
            results.write_atomic(run_dir / SUMMARY_FILE, summarize_repeats(records))
        return records


@dataclass(frozen=True)
class Adaptive:
    plan: adaptive.Plan

    def measure(self, run_dir: Path, measure_repeat: MeasureRepeat) -> list[Record]:
        records, info = adaptive.measure_until_stable(
            self.plan, lambda i: measure_repeat(i, run_dir / f"repeat-{i}", None)
        )
        results.write_atomic(
            run_dir / SUMMARY_FILE, {**summarize_repeats(records), "adaptive": info}
        )
        return records


@dataclass(frozen=True)
class Slot:
    spec: RunSpec
    config: dict[str, Any]
    slot: int

    def measure(self, run_dir: Path, measure_repeat: MeasureRepeat) -> list[Record]:
        """Repeat `slot` of this config; once every repeat has a record, the job's summary."""
        spec, slot = self.spec, self.slot
        if spec.auto_repeats or slot >= spec.repeats:
            record = failed.failed_record(
                self.config,
                f"ConfigError: {SLOT_KEY}={slot} needs a whole number of repeats above it "
                f"(repeats={self.config.get('repeats')}); it is set by the interleaving sweeper",
                error_kind="config",
            )
            results.write_atomic(run_dir / results.RESULT_FILE, record)
            return [record]
        # The job directory is named without the slot, so its repeats gather in one place; the
        # partner jobs (other frameworks) sit beside it in the sweep directory.
        dirs = repeat_dirs(run_dir, spec.repeats)
        record = measure_repeat(slot, dirs[slot], pair_id(self.config, run_dir.parent, slot))
        if spec.repeats > 1:
            done = [_record_of(d / results.RESULT_FILE, record.get("run_key")) for d in dirs]
            if all(done):
                results.write_atomic(run_dir / SUMMARY_FILE, summarize_repeats(done))
        return [record]


def pair_id(config: dict[str, Any], sweep_dir: Path, slot: int) -> str:
    """The same for the runs of one round of a sweep whose configs differ only in framework:
    `<series>-r<round>`, the series naming the sweep and what the partners share."""
    shared = results.run_key({k: v for k, v in config.items() if k != "backend"})
    digest = hashlib.sha256(f"{Path(sweep_dir).resolve()}|{shared}".encode()).hexdigest()
    return f"{digest[:PAIR_SERIES_CHARS]}-r{slot}"


def _record_of(path: Path, key: str | None) -> Record | None:
    """This configuration's record at `path`, finished or failed (None: none yet)."""
    try:
        record = results.read(path)
    except (OSError, ValueError):
        return None
    return record if record.get("run_key") == key else None


def summarize_repeats(records: list[Record]) -> dict[str, Any]:
    """Across repeats: median, spread and confidence interval of each repeat's steady step."""
    from twinbench import stats

    # A run too short for its warm-up has no steady figure (its flags say so): none to summarize
    ok = [r for r in records if r["status"] == "ok" and r["timing"].get("steady_step_s")]
    summary: dict[str, Any] = {
        "schema_version": results.SCHEMA_VERSION,
        "repeats": len(records),
        "ok": len(ok),
        "failed": [r.get("error") for r in records if r["status"] != "ok"],
        "no_steady_state": sum(
            r["status"] == "ok" and not r["timing"].get("steady_step_s") for r in records
        ),
    }
    if ok:
        steady = [r["timing"]["steady_step_s"]["median"] for r in ok]
        epochs = [r["timing"]["epoch_s"]["median"] for r in ok]
        summary["run_key"] = ok[0]["run_key"]
        summary["steady_step_s"] = stats.summarize(steady).as_dict()
        summary["steady_step_modes"] = stats.modes(steady)  # two modes: the median fits neither
        summary["epoch_s"] = stats.summarize(epochs).as_dict()
        summary["steady_samples_per_s"] = stats.summarize(
            [r["timing"]["steady_samples_per_s"] for r in ok]
        ).as_dict()
    return summary
