"""Command line.

    python -m analysis <results dirs or 2017 log folders...> [--out DIR] [--baseline SPEC]
                       [--pricing NAME|FILE] [--metric train_time|steady_step]
    python -m analysis collect <dirs...> [--out PATH]
    python -m analysis mlflow <dirs...> [--tracking-uri URI] [--experiment NAME]   (optional)

Each takes --quiet: no status lines before long work (for scripts).

Bad input (no results, unknown schema, bad JSON, no common baseline) is one line on stderr and
exit status 2; `collect` exits 1 when it found incompatible records (the table is still written).
"""

from __future__ import annotations

import argparse
import logging
import math
import os
import signal
import sys
from collections.abc import Callable
from pathlib import Path

from analysis.errors import AnalysisError, Stopped

PROG = "python -m analysis"
Command = Callable[[argparse.Namespace], int]
LEGACY_OUT = Path("results") / "reports" / "2017-logs"


STATUS_LOGGERS = ("analysis.status",)  # status lines before long work; --quiet turns them off
status_log = logging.getLogger("analysis.status")


def _quiet_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--quiet",
        action="store_true",
        help="no status lines (for scripts); results and errors still print",
    )


def _status(text: str) -> None:
    from twinbench.ui import progress

    progress.emit(text, status_log)


# What each command does, for its --help and for `twinbench --help`.
REPORT_DESCRIPTION = (
    "Compare collected twinbench results (and 2017 logs): report.html, figures, CSV tables and a "
    "terminal summary."
)
COLLECT_DESCRIPTION = (
    "Collect every result.json (and 2017 log) under the given directories into one table, keyed "
    "by machine fingerprint; report duplicates and incompatible records."
)
MLFLOW_DESCRIPTION = (
    "Export every run under the given folders to MLflow (one MLflow run per twinbench run; "
    "already exported runs are skipped). Needs the optional mlflow extra."
)


def _parser(prog: str, description: str, epilog: str | None = None) -> argparse.ArgumentParser:
    return argparse.ArgumentParser(prog=prog, description=description, epilog=epilog)


def add_report_arguments(p: argparse.ArgumentParser) -> None:
    """`report`'s options, the same under `python -m analysis` and `twinbench report`."""
    from analysis.compute import pipeline, pricing, summary
    from analysis.load import backends

    p.add_argument(
        "paths",
        nargs="+",
        type=Path,
        help="results dirs, result.json files, or folders of the 2017 logs",
    )
    p.add_argument(
        "--out",
        type=Path,
        help="folder for report.html and report_files/ (default: the first results dir; "
        f"for a folder of 2017 logs, {LEGACY_OUT}/ in the repository)",
    )
    p.add_argument(
        "--baseline",
        help="configuration everything is relative to: a label such "
        "as '<backend> cpu8' or filters such as 'backend=<backend>,cpus=2' (default: "
        "the GPU run, else the configuration with the most cores measured for every workload, "
        "Keras first, as in 2017)",
    )
    p.add_argument(
        "--reference",
        default=None,
        help="backend every other backend's time is divided by in the framework tables "
        f"(default {backends.DEFAULT_REFERENCE} where it ran, else the first backend present)",
    )
    p.add_argument(
        "--pricing",
        default=pricing.DEFAULT_TABLE,
        help="price table: a name in "
        f"conf/pricing/ or a YAML file (default {pricing.DEFAULT_TABLE}; the 2017 "
        f"logs always use {pricing.LEGACY_TABLE})",
    )
    p.add_argument(
        "--metric",
        default=pipeline.AUTO,
        choices=[pipeline.AUTO, *summary.METRICS],
        help="what is compared: train_time, the sum of epoch wall times as in 2017; "
        "steady_step, the median steady-state step time; auto (the default): steady_step "
        "where every run is capped at max_steps (a deciding sweep's workers), else train_time",
    )
    p.add_argument(
        "--unstable-width",
        type=float,
        default=None,
        help="flag an interval wider "
        "than this fraction of its median (default twinbench.stats' 0.10)",
    )
    p.add_argument(
        "--target-accuracy",
        type=float,
        default=None,
        help="validation accuracy to reach: the report gives each run's wall-clock time to it",
    )
    _quiet_option(p)
    p.add_argument(
        "--parity-dir",
        type=Path,
        action="append",
        default=[],
        help="extra folder of parity certificates (<model>.json)",
    )


def add_collect_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", type=Path)
    _quiet_option(p)
    p.add_argument(
        "--out",
        type=Path,
        help="table path without suffix, or a folder: writes .parquet and .csv (default: <first "
        "dir>/table)",
    )


def add_mlflow_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--tracking-uri", default="file:./mlruns", help="default: file:./mlruns")
    p.add_argument("--experiment", default="twinbench", help="default: twinbench")
    _quiet_option(p)


def _default_out(first: Path) -> Path:
    """The first results dir; but never inside a folder of 2017 logs, which is reference data
    (often shared or read-only): those reports go to results/reports/2017-logs/."""
    from analysis.load import legacy
    from twinbench.paths import WORK_ROOT

    if first.is_dir() and legacy.find_root(first) is not None:
        return WORK_ROOT / LEGACY_OUT
    return first if first.is_dir() else first.parent


def collect_command(args: argparse.Namespace) -> int:
    from analysis.export import collect

    _logging(args.quiet)
    out = args.out or _default_out(args.paths[0]) / collect.DEFAULT_STEM
    _status(f"collect: reading every result under {', '.join(map(str, args.paths))} ...")
    collected = collect.collect(args.paths, out)
    print(collect.summary(collected))
    return 1 if collected.issues.incompatible else 0


def report_command(args: argparse.Namespace) -> int:
    from analysis.compute import pipeline
    from analysis.load.table import runs_table
    from analysis.render import report, terminal

    _logging(args.quiet)
    options = pipeline.Options(
        baseline=args.baseline,
        reference=args.reference,
        pricing=args.pricing,
        metric=args.metric,
        parity_dirs=args.parity_dir,
        inputs=args.paths,
        target_accuracy=args.target_accuracy,
    )
    if args.unstable_width is not None:
        if not (math.isfinite(args.unstable_width) and args.unstable_width > 0):
            raise AnalysisError(
                f"--unstable-width must be a positive fraction of the median (e.g. 0.1), got "
                f"{args.unstable_width}"
            )
        options.unstable_width = args.unstable_width
    # Accuracy is a fraction, as Keras and the records report it: 95 (a percent) matched no run
    # and the report said only that none reached it.
    target = args.target_accuracy
    if target is not None and not (math.isfinite(target) and 0 < target <= 1):
        raise AnalysisError(f"--target-accuracy is a fraction in (0, 1] (e.g. 0.97), got {target}")
    # A misspelt folder of certificates was read as an empty one: the report said "no
    # certificate" for every model.
    for folder in args.parity_dir:
        if not folder.is_dir():
            raise AnalysisError(f"--parity-dir {folder}: no such folder")
    # Each step takes a while on a large set: say what is happening (errors alone go to stderr).
    _status(f"analysis: reading results under {', '.join(map(str, args.paths))} ...")
    runs = runs_table(args.paths)
    out = args.out or _default_out(args.paths[0])
    _status(f"analysis: {len(runs)} runs read; comparing them ...")
    an = pipeline.analyze(runs, options)
    _status(f"analysis: writing {out / 'report.html'} and its figures ...")
    path = report.write(an, out)
    print(terminal.render(an))
    print(f"\nreport: {path}")
    return 0


def mlflow_command(args: argparse.Namespace) -> int:
    from analysis.export import mlflow_export

    _logging(args.quiet)
    _status(f"mlflow: exporting the runs under {', '.join(map(str, args.paths))} ...")
    exported, skipped = mlflow_export.export(args.paths, args.tracking_uri, args.experiment)
    print(f"mlflow: {exported} runs exported, {skipped} already there -> {args.tracking_uri}")
    return 0


def _logging(quiet: bool) -> None:
    from twinbench.ui import progress

    progress.cli_logging(quiet, STATUS_LOGGERS)


# name -> (description, add_arguments, run): what `twinbench` registers as its subcommands too.
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Command]] = {
    "report": (REPORT_DESCRIPTION, add_report_arguments, report_command),
    "collect": (COLLECT_DESCRIPTION, add_collect_arguments, collect_command),
    "mlflow": (MLFLOW_DESCRIPTION, add_mlflow_arguments, mlflow_command),
}


def _stop(signum: int, frame: object) -> None:
    raise Stopped(signum)


def guarded(command: Command, args: argparse.Namespace) -> int:
    """Run an analysis command: its errors are one line and exit status 2; a stop signal is one
    line and 128 + the signal, and leaves no half-written file (the report is written aside and
    moved into place)."""
    # SIGINT too, not left to KeyboardInterrupt: a shell's `&` starts a job with SIGINT ignored,
    # and `kill -INT` to a report written in the background did nothing (issue 45).
    stops = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
    previous = {signum: signal.signal(signum, _stop) for signum in stops}
    try:
        return command(args)
    except AnalysisError as exc:
        print(f"analysis: error: {exc}", file=sys.stderr)
        return 2
    except (KeyboardInterrupt, Stopped) as exc:
        signum = exc.signum if isinstance(exc, Stopped) else signal.SIGINT
        print(
            f"analysis: interrupted by {signal.Signals(signum).name}: nothing half-written was "
            "left (an earlier report stays as it was)",
            file=sys.stderr,
            flush=True,
        )
        return 128 + signum
    except BrokenPipeError:  # output piped into `head` and closed: not an error of ours
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    finally:
        for signum, handler in previous.items():
            signal.signal(signum, handler)


def main(argv: list[str]) -> int:
    """`python -m analysis [report|collect|mlflow] ...` (report when no command is named)."""
    name = argv[0] if argv and argv[0] in COMMANDS else "report"
    rest = argv[1:] if argv and argv[0] in COMMANDS else argv
    description, add_arguments, command = COMMANDS[name]
    prog = PROG if name == "report" else f"{PROG} {name}"
    epilog = f"Also: {PROG} collect <dirs...> --out table   (one Parquet + CSV table)"
    parser = _parser(prog, description, epilog if name == "report" else None)
    add_arguments(parser)
    return guarded(command, parser.parse_args(rest))


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
