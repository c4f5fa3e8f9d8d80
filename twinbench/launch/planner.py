"""Before a sweep starts: how many runs it holds, how many are already finished (and will be
skipped on resume), and how long the rest should take, estimated from earlier records of this
machine.

Jobs are expanded the way Hydra's basic sweeper expands them, and each job's configuration is
composed the way its launcher composes it, so the run directories and run keys are the ones the
jobs will use. A run counts as finished by the same test run_job applies (launch._reusable).

The estimate: for each run still to measure, the median wall time of earlier successful records
on this machine with the same run key; else, from records with the same framework, model and
cores, their median overhead (wall time not spent in epochs: start-up, imports, data) plus their
median time per training step x this run's steps. Runs with neither are counted apart, never
guessed. Wall time = started to finished + the worker's process start (startup.process_start_s).
"""

from __future__ import annotations

import os
import statistics
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from time import monotonic
from typing import Any

from twinbench.config.spec import ConfigError, build_spec
from twinbench.launch import adaptive
from twinbench.launch import runner as launch
from twinbench.launch.decide import DECISIONS_FILE, counted_pairs
from twinbench.launch.repeats import repeat_dirs
from twinbench.machine import environment
from twinbench.paths import WORK_ROOT
from twinbench.result import results

# Earlier records are looked for below the sweep folder's parent (results/sweeps/ holds every
# sweep) and results/; at most this many are read, and the search stops after this long, so a
# huge tree (a sweep folder directly under /tmp or a home folder) cannot stall the sweep's start.
# The clock is read at every folder: a tree with no record in it is bounded too.
MAX_RECORDS = 20000
SEARCH_BUDGET_S = 5.0


@dataclass
class PlannedRun:
    run_dir: Path
    config: dict[str, Any]
    key: str
    finished: bool


@dataclass
class Plan:
    runs: list[PlannedRun] = field(default_factory=list)
    estimate_s: float = 0.0
    estimated_runs: int = 0
    similar_runs: int = 0  # estimated from a similar run, not the same configuration
    history_records: int = 0
    invalid_jobs: int = 0
    # A deciding sweep (hydra.sweeper.decide) launches pairs only until each core count decides
    # or spends its budget: its runs and time are an upper bound, not what it will take.
    deciding: bool = False
    # Its pairs' seconds for every core count together (decision.total_seconds), when it has
    # them: what the sweep's measuring can take, where the estimate of every run can not.
    pool_s: float | None = None
    # A deciding sweep re-run in its folder goes on from the pairs its decisions.json counted,
    # not from finished runs: a resident pair's halves leave no result.json of their own.
    resumed_pairs: int | None = None
    resumed_seconds: float = 0.0  # the pool's seconds those pairs spent

    @property
    def finished(self) -> int:
        return sum(r.finished for r in self.runs)

    def _done(self) -> str:
        if self.resumed_pairs is not None:
            return f"{self.resumed_pairs} pair(s) already counted"
        return f"{self.finished} already finished"

    @property
    def pending(self) -> list[PlannedRun]:
        return [r for r in self.runs if not r.finished]

    def _to_measure(self) -> int:
        """Runs still to measure: a resumed deciding sweep's counted pairs are two runs each."""
        if self.resumed_pairs is not None:
            return max(0, len(self.runs) - 2 * self.resumed_pairs)
        return len(self.pending)

    def describe(self) -> str:
        if self.deciding and self.pending and self.pool_s and not self.invalid_jobs:
            return self._describe_pool()
        text = self._describe()
        if self.deciding and self.pending:
            text += (
                "; at most: each core count stops as soon as its pairs decide or its budget "
                "(pairs, seconds) is spent"
            )
        return text

    def _describe_pool(self) -> str:
        """A deciding sweep with a pool of seconds: its bound is the pool, not its runs."""
        pool = self.pool_s or 0.0
        text = (
            f"plan: up to {len(self.runs)} run(s), {self._done()}; each core "
            f"count stops as soon as its pairs decide, and the pairs stop within "
            f"{format_duration(pool)} in all"
        )
        if self.resumed_pairs is not None:
            left = max(0.0, pool - self.resumed_seconds)
            text += f", {format_duration(left)} of it left"
        left_runs = self._to_measure()
        if self.estimated_runs == len(self.pending) and left_runs:
            # the estimate is of every pending run; a resumed sweep has fewer left to measure
            estimate = self.estimate_s * left_runs / max(1, len(self.pending))
            text += (
                f" (all {left_runs} would take {format_duration(estimate)}, from "
                f"{self.history_records} earlier record(s) on this machine)"
            )
        return text

    def _describe(self) -> str:
        pending = self._to_measure()
        head = f"plan: {len(self.runs)} run(s); {self._done()}, {pending} to measure"
        if self.invalid_jobs:
            head += f"; {self.invalid_jobs} job(s) with an invalid config (will fail at once)"
        if not pending:
            return head
        missing = pending - self.estimated_runs
        if not self.estimated_runs:
            return (
                f"{head}; no wall-time estimate: no earlier record on this machine matches "
                f"(searched {self.history_records} record(s))"
            )
        text = (
            f"{head}; estimated wall time {format_duration(self.estimate_s)} for "
            f"{self.estimated_runs} of them, from {self.history_records} earlier record(s) on "
            "this machine"
        )
        if self.similar_runs:
            text += f" ({self.similar_runs} from runs of other length, scaled by steps)"
        if missing:
            text += f"; {missing} run(s) with no comparable record are not included"
        return text


def format_duration(seconds: float) -> str:
    seconds = round(seconds)
    hours, rest = divmod(seconds, 3600)
    minutes, secs = divmod(rest, 60)
    if hours:
        return f"{hours}h{minutes:02d}m"
    return f"{minutes}m{secs:02d}s" if minutes else f"{secs}s"


def resolved(config: dict[str, Any]) -> tuple[dict[str, Any], int] | None:
    """The config run_job measures (budget resolved) and its repeat count; None if invalid."""
    try:
        spec = build_spec(config)
    except ConfigError:
        return None
    config = {
        **config,
        "cpus": spec.cpus,
        "threads": spec.threads,
        "interop_threads": spec.interop_threads,
        "epochs": spec.epochs,
    }
    # repeats=auto: the fewest it can stop after (its dirs are repeat-<i> from the first)
    return config, adaptive.MIN_REPEATS if spec.auto_repeats else spec.repeats


def plan_jobs(jobs: list[tuple[dict[str, Any], Path]]) -> Plan:
    """Runs of each (job config, job directory), finished or not."""
    plan = Plan()
    for config, job_dir in jobs:
        got = resolved(config)
        if got is None:
            plan.invalid_jobs += 1
            continue
        config, repeats = got
        key = results.run_key(config)
        for rep_dir in repeat_dirs(job_dir, repeats):
            done = not config.get("force") and (
                launch._reusable(rep_dir / results.RESULT_FILE, key) is not None
            )
            plan.runs.append(PlannedRun(rep_dir, config, key, done))
    return plan


# ---------------------------------------------------------------- earlier records


def _wall_s(record: dict[str, Any]) -> float | None:
    try:
        start = datetime.fromisoformat(record["started"])
        end = datetime.fromisoformat(record["finished"])
    except (KeyError, TypeError, ValueError):
        return None
    # `started` is stamped once the worker runs; its process start before that is recorded apart.
    spawn = (record.get("startup") or {}).get("process_start_s") or 0.0
    seconds = (end - start).total_seconds() + float(spawn)
    return seconds if seconds > 0 else None


def _steps(config: dict[str, Any], record: dict[str, Any] | None = None) -> float | None:
    """Training steps of a run: epochs x steps per epoch (capped by max_steps)."""
    epochs = (record or {}).get("epochs") or config.get("epochs")
    per_epoch = (record or {}).get("steps_per_epoch")
    if per_epoch is None:
        per_epoch = config.get("max_steps")
    try:
        return float(epochs) * float(per_epoch) if epochs and per_epoch else None
    except (TypeError, ValueError):
        return None


def _similar(config: dict[str, Any]) -> tuple:
    return (
        (config.get("backend") or {}).get("name"),
        (config.get("model") or {}).get("name"),
        config.get("cpus"),
        config.get("device"),
    )


@dataclass
class History:
    by_key: dict[str, list[float]] = field(default_factory=dict)
    # (framework, model, cores, device) -> [(overhead s, training s per step)]
    by_similar: dict[tuple, list[tuple[float, float]]] = field(default_factory=dict)
    records: int = 0


def record_paths(
    root: Path, deadline: float, clock: Callable[[], float] = monotonic
) -> Iterator[Path]:
    """Every result.json below `root` until `deadline` (of `clock`), read at every folder.
    Hidden folders and virtual environments (.git, .venv, a folder with pyvenv.cfg) hold no
    records and are the bulk of a home folder: they are not entered."""
    for folder, subfolders, files in os.walk(root):
        if clock() > deadline:
            return
        subfolders[:] = sorted(
            d for d in subfolders
            if not d.startswith(".") and not os.path.isfile(os.path.join(folder, d, "pyvenv.cfg"))
        )  # fmt: skip
        if results.RESULT_FILE in files:
            yield Path(folder) / results.RESULT_FILE


def history(roots: list[Path], machine: str) -> History:
    """Wall times of this machine's successful records below `roots`."""
    out = History()
    seen: set[Path] = set()
    deadline = monotonic() + SEARCH_BUDGET_S
    for root in roots:
        for path in record_paths(Path(root), deadline):
            if len(seen) >= MAX_RECORDS:
                break
            if path.resolve() in seen:
                continue
            seen.add(path.resolve())
            try:
                record = results.read(path)
            except (OSError, ValueError):
                continue
            if not isinstance(record, dict):  # another tool's file of that name: not a record
                continue
            env = record.get("environment") or {}
            wall = _wall_s(record)
            if record.get("status") != "ok" or env.get("fingerprint") != machine or not wall:
                continue
            out.records += 1
            out.by_key.setdefault(str(record.get("run_key")), []).append(wall)
            config = record.get("config") or {}
            steps = _steps(config, record)
            train = sum(float(t) for t in record.get("epoch_times_s") or [])
            if steps and 0 < train <= wall:
                pair = (wall - train, train / steps)
                out.by_similar.setdefault(_similar(config), []).append(pair)
    return out


def estimate(plan: Plan, past: History) -> Plan:
    plan.history_records = past.records
    for run in plan.pending:
        same = past.by_key.get(run.key)
        if same:
            plan.estimate_s += statistics.median(same)
            plan.estimated_runs += 1
            continue
        similar, steps = past.by_similar.get(_similar(run.config)), _steps(run.config)
        if similar and steps:
            overhead = statistics.median(o for o, _ in similar)
            plan.estimate_s += overhead + statistics.median(p for _, p in similar) * steps
            plan.estimated_runs += 1
            plan.similar_runs += 1
    return plan


# ---------------------------------------------------------------- from a Hydra sweep


def job_overrides(config: Any) -> list[list[str]]:
    """Each job's overrides as Hydra's basic sweeper expands the sweep's config (its sweeper's
    params, then the command line's), before any repeat is split off."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from omegaconf import OmegaConf

    params = OmegaConf.select(config, "hydra.sweeper.params") or {}
    arguments = [f"{k}={v}" for k, v in params.items()]
    arguments += list(config.hydra.overrides.task)
    parsed = OverridesParser.create().parse_overrides(arguments)
    batches = BasicSweeper.split_arguments(parsed, None)
    return [list(job) for job in batches[0]] if batches else []


def hydra_jobs(config: Any) -> list[tuple[dict[str, Any], Path]]:
    """Each job of the sweep about to start: its composed config and its directory."""
    from hydra.core.global_hydra import GlobalHydra

    from twinbench.launch.compositions import compose_each_job_once

    loader = GlobalHydra.instance().config_loader()
    compose_each_job_once(loader)  # the launcher composes the same jobs again (compositions.py)
    return [
        compose_job(loader, config, overrides, num)
        for num, overrides in enumerate(job_overrides(config))
    ]


def compose_job(
    loader: Any, config: Any, overrides: list[str], num: int
) -> tuple[dict[str, Any], Path]:
    """One sweep job's resolved config and its directory, as Hydra's run_job would make them."""
    from omegaconf import OmegaConf, open_dict, read_write

    job = loader.load_sweep_config(config, overrides)
    with open_dict(job):
        job.hydra.job.num = num
        job.hydra.job.id = str(num)
    job_dir = Path(job.hydra.sweep.dir) / str(job.hydra.sweep.subdir)
    # As Hydra's run_job does: the job's own config is everything but the hydra node.
    with read_write(job), open_dict(job):
        del job["hydra"]
    return OmegaConf.to_container(job, resolve=True), job_dir


def resumed_pairs(sweep_dir: Path) -> tuple[int, float] | None:
    """The pairs an interrupted run of this deciding sweep counted and the seconds they spent,
    from its decisions.json (what Tracker.resume restores); None where it left none."""
    path = Path(sweep_dir) / DECISIONS_FILE
    if not path.is_file():
        return None
    series = (results.read(path) or {}).get("series") or []
    return sum(map(counted_pairs, series)), sum(float(s.get("seconds") or 0) for s in series)


def announce(config: Any) -> str:
    """The one line the sweep prints before its first job (never raises: a plan is advice)."""
    from omegaconf import OmegaConf

    try:
        sweeper = str(OmegaConf.select(config, "hydra.sweeper._target_"))
        if not sweeper.endswith(("BasicSweeper", "InterleavedSweeper")):  # same jobs, reordered
            return "plan: not available for this sweeper (only Hydra's basic sweeper is expanded)"
        plan = plan_jobs(hydra_jobs(config))
        sweep_dir = Path(config.hydra.sweep.dir)
        roots = [sweep_dir.parent, WORK_ROOT / "results"]
        machine = environment.machine_fingerprint(environment.describe())
        plan = estimate(plan, history(roots, machine))
        plan.deciding = bool(OmegaConf.select(config, "hydra.sweeper.decide"))
        pool = OmegaConf.select(config, "hydra.sweeper.decision.total_seconds")
        plan.pool_s = float(pool) if pool else None
        found = resumed_pairs(sweep_dir) if plan.deciding else None
        if found is not None:
            plan.resumed_pairs, plan.resumed_seconds = found
        return plan.describe()
    except Exception as exc:  # the sweep must start even if its plan cannot be made
        return f"plan: not available ({type(exc).__name__}: {exc})"
