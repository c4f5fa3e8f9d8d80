"""The sweep's Hydra callback (conf/config.yaml `hydra.callbacks`): where a sweep stands before
each job, and at its end the side-by-side comparison, the report and the failures.

It lives with the analysis it runs (it was twinbench/callbacks.py, which imported analysis while
analysis imported twinbench: an import cycle hidden behind lazy imports). Hydra builds this
callback in every run.py, a single run's included, so the analysis and the parity checks (pandas,
scipy, matplotlib: 2-5 s of imports on a Zen 3 core) are imported only where a sweep's end uses
them.
"""

from __future__ import annotations

import logging
import sys
import time
from pathlib import Path
from typing import Any

from hydra.core.override_parser.overrides_parser import OverridesParser
from hydra.core.utils import JobStatus
from hydra.experimental.callback import Callback
from omegaconf import DictConfig, OmegaConf

from twinbench.cli import machine_hardware
from twinbench.launch import decide, interleave, planner, screen, slurm
from twinbench.parity import certificates
from twinbench.ui import progress


def sweep_size(task_overrides: list[str], sweeper_params: dict[str, str]) -> int | None:
    """Jobs in a basic sweep: the product of each swept key's values (None if unknown)."""
    given = {o.split("=", 1)[0].lstrip("+~"): o for o in task_overrides if "=" in o}
    for key, values in sweeper_params.items():
        given.setdefault(key, f"{key}={values}")
    try:
        parsed = OverridesParser.create().parse_overrides(list(given.values()))
        n = 1
        for o in parsed:
            if o.is_sweep_override():
                n *= len(list(o.sweep_iterator()))
        return n
    except Exception:  # glob() and other sweeps only the sweeper can expand
        return None


class SweepSummary(Callback):
    """Says where a sweep stands (job i/N, elapsed, time left) before each job; at the end
    prints the side-by-side table of the sweep and exits non-zero if any run failed.

    Hydra turns an exception in a callback into a warning and exits 0, so every way this can go
    wrong ends here in one line and exit code 1: a sweep whose summary cannot be made is not a
    sweep known to have succeeded.
    """

    started_s: float | None = None
    jobs: int | None = None

    def __init__(self) -> None:
        self.failed_jobs = 0  # as the jobs returned them, where they ran in this process

    def on_job_end(self, config: DictConfig, job_return: Any, **kwargs: Any) -> None:
        if job_return.status != JobStatus.COMPLETED or job_return.return_value != "ok":
            self.failed_jobs += 1

    def on_multirun_start(self, config: DictConfig, **kwargs: Any) -> None:
        self.started_s = time.time()  # wall clock: jobs may run on other machines
        swept = config.hydra.sweeper.get("params")
        params = OmegaConf.to_container(swept, resolve=True) if swept else {}
        self.jobs = sweep_size(list(config.hydra.overrides.task), params)
        if interleave.splits_repeats(config) and self.jobs:
            # Each repeat is its own job there (twinbench/launch/interleave.py): known if not swept.
            repeats = config.get("repeats")
            given = [o for o in config.hydra.overrides.task if o.split("=")[0] == "repeats"]
            swept = "repeats" in params or any(not o[len("repeats=") :].isdigit() for o in given)
            self.jobs = self.jobs * repeats if isinstance(repeats, int) and not swept else None
        deciding = OmegaConf.select(config, "hydra.sweeper.decide")
        if deciding and interleave.splits_repeats(config):  # one pair a batch: decide_sweep.py
            from twinbench.launch.decide_sweep import check_two_sides_before_the_plan

            check_two_sides_before_the_plan(config)
        for line in (slurm.prepare(config), planner.announce(config)):
            if line:
                print(line, flush=True)

    def on_job_start(self, config: DictConfig, **kwargs: Any) -> None:
        if self.started_s is None or "num" not in config.hydra.job:
            return  # a single run, or a launcher that runs jobs in other processes
        state = progress.SweepState(
            int(config.hydra.job.num) + 1,
            self.jobs,
            self.started_s,
            config.hydra.job.override_dirname,
        )
        progress.current_sweep = state  # drawn beside the run's own bar on a terminal
        progress.emit(progress.sweep_line(state, time.time()), logging.getLogger("twinbench.sweep"))

    def on_multirun_end(self, config: DictConfig, **kwargs: Any) -> None:
        progress.current_sweep = None
        try:
            failed = self._summarize(Path(config.hydra.sweep.dir), config)
        except Exception as exc:  # reported as one line, never swallowed
            message = " ".join(f"{type(exc).__name__}: {exc}".splitlines())
            print(
                f"twinbench: error: the sweep summary could not be made: {message}",
                file=sys.stderr,
                flush=True,
            )
            raise SystemExit(1) from None
        if failed or self.failed_jobs:
            raise SystemExit(1)

    @staticmethod
    def _summarize(sweep_dir: Path, config: DictConfig) -> bool:
        from analysis.load.table import load_results

        records = load_results([sweep_dir])
        models = sorted({r["model"] for _, r in records if r.get("status") == "ok"})
        decided = (Path(sweep_dir) / decide.DECISIONS_FILE).is_file()
        if decided and screen.screen_only(config):
            return first_screen_end(
                sweep_dir, records, models, bool(config.get("certify")), config.get("report", True),
                list(OmegaConf.select(config, "hydra.overrides.task", default=[]) or []),
            )  # fmt: skip
        if config.get("certify"):
            certify_missing(models)
        verdicts = decide.render(sweep_dir)  # a deciding sweep (+experiment=compare)
        print("\n" + comparison_table(records, decided_below=bool(verdicts)), flush=True)
        if verdicts:
            print("\n" + verdicts, flush=True)
        from twinbench.ui import progress

        wanted = bool(config.get("report", True))
        if wanted:
            sweep_log = logging.getLogger("twinbench.sweep")
            progress.emit("report: writing report.html and its figures ...", sweep_log)
        written = write_report(sweep_dir, wanted)
        return _list_failures(records) or not written


def _list_failures(records: list[tuple[Path, dict[str, Any]]]) -> bool:
    from analysis.load.table import failures

    failed = failures(records)
    if failed:
        print(f"\n{len(failed)} of {len(records)} runs failed:")
        for path, record in failed:
            print(f"  {path.parent.name}: {record['error']}")
    return bool(failed)


def first_screen_end(
    sweep_dir: Path,
    records: list[tuple[Path, dict[str, Any]]],
    models: list[str],
    certify: bool,
    report: bool = True,
    given: list[str] | None = None,
) -> bool:
    """The end of a deciding sweep's first screen (twinbench/launch/screen.py): per core count the
    decision, the hardware effect, the certificate, the report's path. The side-by-side tables
    and every run's block are behind verbose=true (and in report.html)."""
    from twinbench.machine import cpu

    live = screen.current or screen.LiveLine()
    if certify:
        certify_missing(models, live)
    statuses = {m: certificates.status(m) for m in models}
    body = screen.read_body(Path(sweep_dir) / decide.DECISIONS_FILE)
    cores = len(cpu.allowed_cpus())
    live.show("hardware: reading this machine's earlier deciding sweeps ...")
    over_sweeps = machine_hardware.machine_line(Path(sweep_dir), cores)
    found = [r for _, r in records]
    lines = screen.end_lines(body, found, statuses, cores, given or [], over_sweeps)
    if report:
        live.show("report: writing report.html and its figures ...")
    live.clear()
    print("\n".join(lines), flush=True)
    written = write_report(sweep_dir, report)
    failed = _list_failures(records)
    print(screen.FOOTER, flush=True)
    screen.current = None
    return failed or not written


def write_report(sweep_dir: Path, wanted: bool = True) -> bool:
    """The sweep's report.html; prints where it is, or why it is not there (False).

    A report that cannot be written fails the sweep (exit status 1), though every run finished:
    the sweep's output is incomplete, and a script that reads report.html must not be told
    otherwise. The rest of the summary is still printed first. `wanted` False (report=false):
    none is written, and the line says how to make it later.
    """
    if not wanted:
        print(f"report: not written (report=false); python -m analysis {sweep_dir}", flush=True)
        return True
    from analysis.compute import pipeline
    from analysis.load.table import runs_table
    from analysis.render import report

    try:
        options = pipeline.Options(inputs=[sweep_dir], strict_baseline=False)
        path = report.write(pipeline.analyze(runs_table([sweep_dir]), options), sweep_dir)
    except Exception as exc:  # AnalysisError or a report bug: the summary goes on
        message = " ".join(f"{type(exc).__name__}: {exc}".splitlines())
        print(f"report not written: {message.removeprefix('AnalysisError: ')}", flush=True)
        return False
    print(f"report: {path}", flush=True)
    return True


def certify_missing(models: list[str], live: screen.LiveLine | None = None) -> None:
    """The equivalence half of the comparison: certify each model that has no certificate yet.

    Runs after the measured jobs (it loads both frameworks, in their own processes) so that it
    never competes with a timing; a current certificate, pass or fail, is kept as it is. On the
    first screen (`live`) it is the progress line, and the certificate's status follows it.
    """
    from twinbench.parity import compare  # scipy.stats, for the weight distributions' tests

    for model in models:
        if certificates.status(model)["status"] in ("pass", "fail"):
            continue  # a stale or missing certificate is made again
        doing = f"parity: certifying {model} on every backend (a minute or more)..."
        if live is not None:
            live.show(doing, force=True)
        else:
            progress.emit(doing, logging.getLogger("twinbench.sweep"))
        for report in compare.check_all(model):
            path = certificates.write_certificate(report)
            verdict = "PASS" if report.passed else "FAIL: " + "; ".join(report.failures)
            if live is None:
                print(f"parity: {model} {report.backend} {verdict} -> {path}", flush=True)


def comparison_table(found: list[tuple[Path, dict[str, Any]]], decided_below: bool = False) -> str:
    """The compact terminal comparison of the given records (see analysis.render.terminal);
    `decided_below`: a deciding sweep's decisions follow it, and they are its verdict."""
    from analysis.compute import pipeline
    from analysis.errors import AnalysisError
    from analysis.load import records as records_module
    from analysis.load.table import frame
    from analysis.render import terminal

    if not found:
        return "no runs to compare"
    runs = frame([records_module.to_row(records_module.Record(p, r)) for p, r in found])
    try:
        an = pipeline.analyze(runs, pipeline.Options(strict_baseline=False))
    except AnalysisError as exc:
        return f"no comparison: {exc}"
    # the sweep callback lists failures itself
    return terminal.render(an, with_failures=False, decided_below=decided_below)
