"""The `twinbench` subcommands: one registry, one convention.

Each subcommand is a Command: a one-line summary (`twinbench --help`), a description (its own
--help), `add_arguments(parser)` that declares its options on an argparse parser, and `run(args)`
that does the work and returns the exit status. The options are declared once, next to the code
that reads them, and the old entry points (`python -m analysis`, `python -m twinbench.cli.curves`)
build their parsers from the same functions, so both spell the same options. docs/reference/
commands.md is generated from this registry (twinbench/cli/reference.py).

Two commands forward their arguments untouched instead (add_arguments is None; run receives
them as args.argv): `run`, whose arguments are Hydra overrides and whose --help is the Hydra app's,
and `bench`, whose arguments are the chosen benchmark's. argparse alone (no click, no typer): it
is what every tool here already used, and the standard library.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from dataclasses import dataclass

import analysis.__main__ as analysis_cli
from frameworks.registry import REFERENCE
from twinbench.cli import aa_campaign, bench, calibrate, curves, curves_table, stacks
from twinbench.config.checks import fail
from twinbench.config.spec import group_choices

Parsed = Callable[[argparse.Namespace], int]


@dataclass(frozen=True)
class Command:
    name: str
    summary: str  # one line, in `twinbench --help`
    description: str  # the command's --help, above its options
    add_arguments: Callable[[argparse.ArgumentParser], None] | None  # None: forwards its args
    run: Parsed

    def parser(self, prog: str, width: int | None = None) -> argparse.ArgumentParser:
        """This command's parser (`width` fixes the help's line width, for the reference page)."""

        # A docstring description keeps its own lines (its examples); a one-line one is wrapped.
        raw = "\n" in self.description.strip()
        kind = argparse.RawDescriptionHelpFormatter if raw else argparse.HelpFormatter

        def formatter(prog: str) -> argparse.HelpFormatter:
            return kind(prog, width=width)

        parser = argparse.ArgumentParser(
            prog=prog, description=self.description, formatter_class=formatter
        )
        if self.add_arguments is not None:
            self.add_arguments(parser)
        return parser

    def main(self, argv: list[str], prog: str) -> int:
        if self.add_arguments is None:
            return self.run(argparse.Namespace(argv=argv, prog=prog))
        return self.run(self.parser(prog).parse_args(argv))


def _run(args: argparse.Namespace) -> int:
    from twinbench.cli.run import main_from_command_line  # Hydra: loaded only to run

    sys.argv = [args.prog, *args.argv]  # Hydra reads its overrides from sys.argv
    main_from_command_line()
    return 0


def _bench(args: argparse.Namespace) -> int:
    return bench.main(args.argv, args.prog)


def _analysis(name: str) -> tuple[str, Callable[[argparse.ArgumentParser], None], Parsed]:
    description, add_arguments, command = analysis_cli.COMMANDS[name]
    return description, add_arguments, lambda args: analysis_cli.guarded(command, args)


PARITY_DESCRIPTION = (
    "Certify that a model is the same network on every backend: build it in each backend's own "
    "process, compare the forward pass and a few training steps against the reference backend, "
    "and write one certificate per model and backend (results/parity/). Exit status 1 when a "
    "backend fails."
)


def _add_parity_arguments(p: argparse.ArgumentParser) -> None:
    models = group_choices("model")
    default = f"default: all: {', '.join(models)}"
    p.add_argument("models", nargs="*", help=f"models to certify ({default})")
    p.add_argument("--all", action="store_true", help="every model (the default)")
    p.add_argument(
        "--reference", help=f"backend the others are compared against (default: {REFERENCE})"
    )
    p.add_argument("--backends", help="comma-separated backends to certify (default: every other)")
    p.add_argument(
        "--stack",
        help="certify on this stack's releases (conf/stack/: "
        f"{', '.join(group_choices('stack'))}; default: the project's own, pinned)",
    )
    p.add_argument("--quiet", action="store_true", help="no status lines (for scripts)")


def _parity(args: argparse.Namespace) -> int:
    from twinbench.parity.cli import main as parity_main  # numpy and the certificate code

    reference = args.reference or REFERENCE
    if reference in (args.backends or "").split(","):  # would compare it with itself
        fail(
            f"--backends names the reference backend '{reference}': it is what the others are "
            "compared against (--reference chooses another)"
        )

    argv = ["--all"] if args.all or not args.models else list(args.models)
    argv += ["--reference", args.reference] if args.reference else []
    argv += ["--backends", args.backends] if args.backends else []
    argv += ["--stack", args.stack] if args.stack else []
    argv += ["--quiet"] if args.quiet else []
    return parity_main(argv)


RUN_SUMMARY = (
    "train and measure: Hydra overrides, add -m to sweep "
    f"(twinbench run -m backend={','.join(group_choices('backend'))} cpus=1,null)"
)
RUN_DESCRIPTION = (
    "The Hydra app (also `python run.py ...`): every argument is a Hydra override "
    "(group=option, key=value; -m sweeps). `twinbench run --help` prints its groups, keys and "
    "examples; --cfg job prints the composed config."
)

COMMANDS: dict[str, Command] = {
    c.name: c
    for c in (
        Command("run", RUN_SUMMARY, RUN_DESCRIPTION, None, _run),
        Command(
            "report",
            "compare collected results: report.html, charts, tables "
            "(twinbench report results/sweeps/<dir>)",
            *_analysis("report"),
        ),
        Command(
            "collect", "gather result.json files into one Parquet/CSV table", *_analysis("collect")
        ),
        Command(
            "parity",
            "equivalence certificate of a model on every backend (twinbench parity mlp)",
            PARITY_DESCRIPTION,
            _add_parity_arguments,
            _parity,
        ),
        Command(
            "mlflow",
            "export collected runs to an MLflow tracking store (optional extra: .[mlflow])",
            *_analysis("mlflow"),
        ),
        Command("curves", curves.SUMMARY, curves.__doc__ or "", curves.add_arguments, curves.run),
        Command(
            "curves_table",
            curves_table.SUMMARY,
            curves_table.__doc__ or "",
            curves_table.add_arguments,
            curves_table.run,
        ),
        Command(
            "calibrate",
            calibrate.SUMMARY,
            calibrate.__doc__ or "",
            calibrate.add_arguments,
            calibrate.run,
        ),
        Command(
            "aa",
            aa_campaign.SUMMARY,
            aa_campaign.__doc__ or "",
            aa_campaign.add_arguments,
            aa_campaign.run,
        ),
        Command("stacks", stacks.SUMMARY, stacks.__doc__ or "", stacks.add_arguments, stacks.run),
        Command(
            "bench",
            "run one of benchmarks/, twinbench measuring itself (twinbench bench --help: the list)",
            bench.__doc__ or "",
            None,
            _bench,
        ),
    )
}
