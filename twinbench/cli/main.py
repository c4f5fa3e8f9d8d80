"""The installed `twinbench` command: one entry point in front of the three tools (run, the
analysis, parity). Kept apart from twinbench/config/checks.py, whose helpers those tools import: the
dispatcher imports the tools, so the tools must not import the dispatcher."""

from __future__ import annotations

import sys

from analysis.__main__ import main as analysis_main
from twinbench.config.checks import fail
from twinbench.config.spec import group_choices

COMMANDS = {
    "run": "train and measure: Hydra overrides, add -m to sweep "
    f"(twinbench run -m backend={','.join(group_choices('backend'))} cpus=1,null)",
    "report": "compare collected results: report.html, charts, tables "
    "(twinbench report results/sweeps/<dir>)",
    "collect": "gather result.json files into one Parquet/CSV table",
    "parity": "equivalence certificate of a model on every backend (twinbench parity mlp)",
    "mlflow": "export collected runs to an MLflow tracking store (optional extra: .[mlflow])",
}


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = ["usage: twinbench <command> [arguments]", "", "commands:"]
    lines += [f"  {name:<{width}}  {text}" for name, text in COMMANDS.items()]
    lines += ["", "twinbench <command> --help describes a command's arguments."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """The installed `twinbench` command: one entry point in front of the three tools."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    command, rest = argv[0], argv[1:]
    if command == "run":
        from twinbench.cli.run import main_from_command_line  # Hydra: loaded only to run

        sys.argv = ["twinbench run", *rest]  # Hydra reads its overrides from sys.argv
        main_from_command_line()
        return 0
    if command in ("report", "collect", "mlflow"):
        return analysis_main([command, *rest])
    if command == "parity":
        from twinbench.parity.cli import main as parity_main  # numpy and the certificate code

        return parity_main(rest)
    fail(f"unknown command '{command}'; choose one of: {', '.join(COMMANDS)}")
