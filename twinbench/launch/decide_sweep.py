"""The deciding sweep's loop: Hydra's basic sweep, one pair a batch, decided series dropped.

Hydra's BasicSweeper launches its batches one after another and never looks at what they
returned; here, after each pair, the pair's two records are read from their run directories and
handed to twinbench.launch.decide, and the later pairs of a series that is done are skipped
(never launched, so they cost nothing). decisions.json is written after every pair, so an
interrupted sweep keeps what it had decided.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from frameworks import registry
from twinbench.config.checks import fail
from twinbench.launch import machine_lock, resident, screen
from twinbench.launch.decide import DECISIONS_FILE, Series, Tracker
from twinbench.launch.interleave import SLOT_KEY, is_framework_override, pair_group, side_names
from twinbench.launch.repeats import repeat_dirs
from twinbench.machine import cpu, environment
from twinbench.measure import noise
from twinbench.result import results
from twinbench.sequential import Design, load_design
from twinbench.ui import progress
from twinbench.ui.cores import cores_label

Key = tuple[str, ...]


def _split(overrides: list[str]) -> tuple[Key, int]:
    """(what the job shares with its partners, its round) from a job's overrides."""
    slot = next((o for o in overrides if o.startswith(SLOT_KEY + "=")), f"{SLOT_KEY}=0")
    rest = tuple(o for o in overrides if not o.startswith(SLOT_KEY + "="))
    return pair_group(rest), int(slot.split("=", 1)[1])


def pair_batches(ordered: list[list[str]]) -> list[list[list[str]]]:
    """The interleaved jobs cut into pairs: consecutive jobs of one series and round."""
    batches: list[list[list[str]]] = []
    last: tuple[Key, int] | None = None
    for job in ordered:
        here = _split(job)
        if here != last:
            batches.append([])
            last = here
        batches[-1].append(job)
    return batches


def check_two_sides(batches: list[list[list[str]]]) -> None:
    """Every pair has its two sides (two backends, or two values of a backend.* setting), else
    one line before any job: a sweep given one backend (`+experiment=compare backend=torch`)
    ran each lone run as a pair missing its half until max_failed_in_a_row stopped it, and
    exited 0 saying "no complete pair"."""
    sizes = {len(b) for b in batches if b}
    if sizes and sizes != {2}:
        sides = sorted({o for b in batches for job in b for o in job if is_framework_override(o)})
        fail(
            f"a deciding sweep compares two sides a pair (two backends, or two values of a "
            f"backend.* setting); this one gives {max(sizes)} ({', '.join(sides) or 'none'}): "
            f"sweep over two, e.g. backend={','.join(registry.names()[:2])}"
        )


def check_two_sides_before_the_plan(config: Any) -> None:
    """check_two_sides on a deciding sweep's jobs as its config states them, for the sweep's
    start callback: there the refusal comes before the plan line, the one line bad input gets
    (the sweeper's own check runs only after the plan was printed). Overrides Hydra cannot parse
    are left to Hydra's own message."""
    from hydra.errors import HydraException

    from twinbench.launch.planner import job_overrides

    try:
        jobs = job_overrides(config)
    except HydraException:
        return
    groups: dict[Key, list[list[str]]] = {}
    for job in jobs:
        groups.setdefault(pair_group(tuple(job)), []).append(job)
    check_two_sides(list(groups.values()))


def labels(keys: list[Key]) -> dict[Key, str]:
    """Each series named by what tells it apart from the others (e.g. `cpus=1`). A lone series
    is named by its core count where it has one: "all" read as all cores on the first screen,
    for a sweep of `cpus=1` alone."""
    if len(keys) == 1:
        cores = [o for o in keys[0] if o.lstrip("+~").startswith("cpus=")]
        return {keys[0]: " ".join(cores) or "all"}
    common = set.intersection(*(set(k) for k in keys)) if keys else set()
    return {k: " ".join(o for o in k if o not in common) or "all" for k in keys}


def _record(job_return: Any) -> dict[str, Any] | None:
    """The record of a finished job, read from its run directory (None: none there)."""
    cfg, hydra_cfg = job_return.cfg, job_return.hydra_cfg
    run_dir = Path(OmegaConf.select(hydra_cfg, "hydra.runtime.output_dir"))
    repeats, slot = cfg.get("repeats"), cfg.get(SLOT_KEY) or 0
    if not isinstance(repeats, int) or slot >= repeats:
        return None
    try:
        record = results.read(repeat_dirs(run_dir, repeats)[slot] / results.RESULT_FILE)
    except (OSError, ValueError):
        return None
    return record


def floor_target(sweeper: Any, job: list[str], design: Design) -> tuple[str, str] | None:
    """(machine fingerprint, workload key) this series' noise floor is cached under (None: its
    config cannot be composed here, as in the tests' stand-in sweeper)."""
    try:
        cfg = sweeper.hydra_context.config_loader.load_sweep_config(sweeper.config, list(job))
    except Exception:  # any composition failure shows in the job itself, as one line
        return None
    model = OmegaConf.select(cfg, "model.name")
    epochs = OmegaConf.select(cfg, "epochs") or OmegaConf.select(cfg, "model.epochs")
    cores = OmegaConf.select(cfg, "cpus") or len(cpu.allowed_cpus())
    per_tick = OmegaConf.select(cfg, "backend.steps_per_execution") or 1
    epochs, steps = resident.floor_length(
        design, epochs, OmegaConf.select(cfg, "max_steps"), per_tick
    )
    malloc = OmegaConf.select(cfg, "backend.allocator")  # the series' first backend's
    workload = noise.workload_key(model, epochs, steps, cores, design.pairing, malloc)
    return environment.describe()["fingerprint"], workload


def floor_line(target: tuple[str, str] | None, design: Design) -> str | None:
    """The cached noise floor under `target` (floor_target), as one line."""
    if target is None:
        return None
    return noise.describe(noise.read_floor(*target), design.measure, design.margin)


def floor_from_pairs(series: Series, target: tuple[str, str] | None, design: Design) -> None:
    """Where this machine and workload have no A/A floor, the series' own pairs give one
    (twinbench/measure/noise.py from_comparison): cached for the next comparison, and stated
    with this series' verdict instead of "not calibrated"."""
    if target is None or not series.done:
        return
    about = {"backends": [series.a, series.b], "series": series.label}
    record = noise.from_comparison(*target, series.ratios, design, about)
    if record is not None:
        series.floor = noise.describe(record, design.measure, design.margin)


def run_deciding(sweeper: Any, arguments: list[str]) -> list[Any]:
    """BasicSweeper.sweep with a decision after every pair (see the module's docstring)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    config, launcher = sweeper.config, sweeper.launcher
    params = sweeper._parse_config()
    params.extend(arguments)
    parser = OverridesParser.create(config_loader=sweeper.hydra_context.config_loader)
    batches = sweeper.split_arguments(parser.parse_overrides(params), None)
    check_two_sides(batches)
    sweep_dir = Path(config.hydra.sweep.dir)
    sweep_dir.mkdir(parents=True, exist_ok=True)
    OmegaConf.save(config, sweep_dir / "multirun.yaml")

    design = load_design(**sweeper.decision)
    shown = screen.screen_only(config)  # the first screen (twinbench/launch/screen.py)
    live = screen.LiveLine() if shown else None
    if shown:
        screen.current = live
        progress.quiet_console(screen.SCREEN_QUIET_LOGGERS)
        progress.screen_quiet = True  # the runs' relays draw nothing (runner.start_worker)
    tracker = Tracker(design, say=(lambda _line: None) if shown else print)
    all_cores = len(cpu.allowed_cpus()) if shown else None
    keys = [_split(b[0])[0] for b in batches if b]
    names = labels(sorted(set(keys)))
    targets = {}
    for key in names:
        series = tracker.open(key, names[key], sum(1 for k in keys if k == key))
        first = next(b[0] for b in batches if b and _split(b[0])[0] == key)
        targets[key] = floor_target(sweeper, first, design)
        series.floor = floor_line(targets[key], design)
        # Said before the first pair: a margin below the floor cannot be decided. The first
        # screen says only that warning; verbose=true says the floor itself too.
        if series.floor and (not shown or "WARNING" in series.floor):
            name = cores_label(series.label, all_cores) if shown else series.label
            print(f"decide: {name}: {series.floor}", flush=True)
    most = max((s.max_pairs for s in tracker.series.values()), default=0)
    print(screen.design_line(design.__dict__, most), flush=True)
    skip = resume(tracker, sweep_dir, all_cores)
    returns, index, done_before = [], 0, 0
    try:
        for batch in batches:
            if not batch:
                continue
            key = _split(batch[0])[0]
            if skip.get(key, 0) > 0:  # counted in an interrupted run of this sweep
                skip[key] -= 1
                index += len(batch)
                continue
            if tracker.done(key):
                continue
            sweeper.validate_batch_is_legal(batch)
            if live is not None:
                live.show(_progress(tracker, all_cores, key))
            together = design.pairing in ("resident", "turns") and len(batch) == 2
            sides = side_names(batch)  # the pair's halves by what tells them apart
            # A pair in this process takes the machine before its clock starts: another sweep's
            # pair held it, and the wait was spent from this sweep's seconds (2026-12-06).
            lock = pair_lock(sweeper) if together else None
            with machine_lock.measurement_lock(lock), machine_lock.held_for(lock):
                start = time.monotonic()
                if design.pairing == "resident" and together:
                    pair, unit = run_resident(sweeper, batch, index, design, sides)
                    returns.append(list(pair.values()))
                elif together:
                    pair = run_in_turns(sweeper, batch, index, design, sides)
                    returns.append(list(pair.values()))
                else:
                    finished = launcher.launch(batch, initial_job_idx=index)
                    returns.append(finished)
                    found = zip(sides, map(_record, finished), strict=False)
                    pair = {side: record for side, record in found if record is not None}
                    if shown:  # each launch sets Hydra's logging up again
                        progress.quiet_console(screen.SCREEN_QUIET_LOGGERS)
                seconds = time.monotonic() - start
            index += len(batch)
            if design.pairing == "resident" and len(batch) == 2:
                tracker.add_unit(key, *unit, seconds)
            else:
                tracker.add(key, pair, seconds)
            tracker.write(sweep_dir)
            if live is not None:  # a line in a log whenever a core count has ended
                ended = sum(s.done for s in tracker.series.values())
                live.show(_progress(tracker, all_cores), force=ended > done_before)
                done_before = ended
    finally:
        progress.screen_quiet = False
    for key, series in tracker.series.items():
        floor_from_pairs(series, targets.get(key), design)
    tracker.write(sweep_dir)
    return returns


def _progress(tracker: Tracker, all_cores: int | None, running: Key | None = None) -> str:
    """The live line: the pair now measured, and where every core count stands."""
    series = list(tracker.series.values())
    spent = sum(s.seconds for s in series)
    doing = None
    if running is not None:
        s = tracker.series[running]
        n = len(s.ratios[s.design.measure]) + s.incomplete + 1
        doing = f"pair {n} of {cores_label(s.label, all_cores)}"
    return screen.progress_text(series, all_cores, spent, tracker.design.total_seconds, doing)


def resume(tracker: Tracker, sweep_dir: Path, all_cores: int | None) -> dict[Key, int]:
    """The pairs an interrupted run of this sweep counted (its decisions.json), restored into
    `tracker` and said in one line; returns how many pairs per series to skip. Pairs are the
    unit resumed, not runs: a resident worker pair's blocks live only in its sweep, so a half
    found finished on its own could not make a unit again (each came back as a failed pair)."""
    try:
        skip = tracker.resume(sweep_dir)
    except ValueError as exc:
        fail(str(exc))
    counted = [
        f"{cores_label(tracker.series[key].label, all_cores)} {n} pair{'s' * (n != 1)}"
        for key, n in skip.items()
        if n
    ]
    if counted:
        print(f"decide: resumed from {sweep_dir / DECISIONS_FILE}: {', '.join(counted)}")
    return skip


def pair_lock(sweeper: Any) -> str | None:
    """The measurement lock the sweep's pairs take (together.lock_key of its config), held by
    the sweep around each pair whose halves run in this process. Pairs a launcher runs
    elsewhere (sequential) take it in their own processes, which a lock held here would block."""
    from twinbench.launch import together

    cfg = sweeper.config  # OmegaConf.select resolves the default's ${oc.env:TMPDIR,/tmp}
    lock_file = OmegaConf.select(cfg, "measure.lock_file")
    config = {"allow_parallel": OmegaConf.select(cfg, "allow_parallel"), "measure": {}}
    return together.lock_key({**config, "measure": {"lock_file": lock_file}})


def compose_pair(sweeper: Any, batch: list[list[str]], index: int) -> list[tuple[Any, Path]]:
    """Each half of a pair as the job Hydra's launcher would run: its composed config and its
    directory (planner.compose_job)."""
    from hydra.core.global_hydra import GlobalHydra

    from twinbench.launch import planner

    loader = GlobalHydra.instance().config_loader()
    return [
        planner.compose_job(loader, sweeper.config, list(job), index + i)
        for i, job in enumerate(batch)
    ]


def run_in_turns(
    sweeper: Any, batch: list[list[str]], index: int, design: Any, sides: list[str]
) -> dict[str, dict[str, Any]]:
    """One pair with both halves alive at once, taking turns (twinbench/launch/together.py);
    returns the records by side. Each run's summary block goes to the twinbench.worker log:
    on the console with verbose=true, off it on the first screen (twinbench/launch/screen.py)."""
    from twinbench.launch import together

    jobs = measured_afresh(compose_pair(sweeper, batch, index))
    halves = together.run_together(jobs, design.turn_ticks, design.turn_gap_s)
    return _summarised(jobs, halves, sides)


def measured_afresh(jobs: list[tuple[Any, Path]]) -> list[tuple[Any, Path]]:
    """A pair's two jobs with `force`: the halves of a pair share its seconds, so a half found
    finished (by a run interrupted before the pair was counted) is measured again beside its
    partner, the earlier record kept as result.previous-N.json; a resumed sweep skips the pairs
    it had counted (resume)."""
    return [({**body, "force": True}, folder) for body, folder in jobs]


def _summarised(
    jobs: list[tuple[Any, Path]], halves: list[list[dict[str, Any]]], sides: list[str]
) -> dict[str, dict[str, Any]]:
    """Each half's summary block to the twinbench.worker log (a failed run's to stderr); the
    records by side (side_names)."""
    from twinbench.launch import runner as launch

    pair = {}
    for side, records in zip(sides, halves, strict=True):
        for record in records:
            line = launch.summary(record)
            if record["status"] == "ok":
                progress.emit(line)
            else:
                print(line, file=sys.stderr, flush=True)
            pair[side] = record
    return pair


UnitFields = tuple[list[str], dict[str, float] | None, int]  # names A/B, ratios A/B or None, rounds


def run_resident(
    sweeper: Any, batch: list[list[str]], index: int, design: Design, sides: list[str]
) -> tuple[dict[str, dict[str, Any]], UnitFields]:
    """One resident worker pair (twinbench/launch/resident.py): the records by side, and the
    unit for the tracker as (names A/B, ratios A/B per measure or None, rounds)."""
    jobs = measured_afresh(compose_pair(sweeper, batch, index))
    measured = resident.run_pair(jobs, design)
    pair = _summarised(
        [(resident.size_job(b, design), d) for b, d in jobs], measured.records, sides
    )
    names = list(sides)
    a, b = Series.ordered(names)
    # The interleaving starts either backend first; A/B is the reference's order.
    unit = resident.unit_from(measured, design, flip=names[0] != a)
    if unit is None:
        return pair, ([a, b], None, 0)
    return pair, ([a, b], unit.ratios, unit.rounds)
