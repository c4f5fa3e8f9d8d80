"""Command-line checks that run before Hydra launches anything.

Hydra reports an unknown group option as a multi-line error with its search path; users get one
line naming the choices instead, and a sweep with one impossible value fails before its first job.
"""

from __future__ import annotations

import sys
from typing import NoReturn

from twinbench import cpu
from twinbench.config import DEVICES, ConfigError, group_choices

GROUPS = ("backend", "model", "data", "opt")
POSITIVE_INTS = ("cpus", "threads", "interop_threads", "epochs", "max_steps", "repeats")


def fail(message: str, code: int = 2) -> NoReturn:
    print(f"twinbench: error: {message.removeprefix('ConfigError: ')}", file=sys.stderr, flush=True)
    raise SystemExit(code)


def _values(override) -> list:
    if override.is_sweep_override():
        return list(override.sweep_iterator())
    return [override.value()]


def validate_overrides(args: list[str]) -> None:
    """Raise ConfigError for the first impossible value among command-line overrides."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    overrides = [a for a in args if "=" in a and not a.startswith("-")]
    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except Exception as exc:  # Hydra's own grammar errors, kept to their first line
        raise ConfigError(str(exc).splitlines()[0]) from None
    available = len(cpu.allowed_cpus())
    for o in parsed:
        key = o.key_or_group.lstrip("+~")
        if key.startswith("hydra") or o.is_delete():
            continue
        if key == "pricing":  # conf/pricing/ holds the report's tables, not a run's setting
            raise ConfigError(
                "prices are chosen in the report: python -m analysis <results> --pricing NAME "
                f"(NAME one of: {', '.join(group_choices('pricing'))})"
            )
        for value in _values(o):
            if key in GROUPS and str(value) not in group_choices(key):
                raise ConfigError(
                    f"unknown {key} '{value}'; choose one of: {', '.join(group_choices(key))}"
                )
            if key in POSITIVE_INTS and value is not None:
                if isinstance(value, bool) or not isinstance(value, int):
                    raise ConfigError(f"{key} must be a whole number, got {value!r}")
                if value < 1:
                    raise ConfigError(f"{key} must be at least 1, got {value}")
                if key == "cpus" and value > available:
                    raise ConfigError(
                        f"cpus={value} but this process may use only {available} "
                        f"cores; choose cpus between 1 and {available}"
                    )
            if key == "device":
                if value not in DEVICES:
                    raise ConfigError(
                        f"unknown device '{value}'; choose one of: {', '.join(DEVICES)}"
                    )
                if value == "cuda" and not cpu.gpu_visible():
                    raise ConfigError(
                        "device=cuda but no NVIDIA GPU is visible on this machine; use device=cpu"
                    )


def check_overrides(args: list[str]) -> None:
    try:
        validate_overrides(args)
    except ConfigError as exc:
        fail(str(exc))


COMMANDS = {
    "run": "train and measure: Hydra overrides, add -m to sweep "
    "(twinbench run -m backend=torch,tensorflow cpus=1,null)",
    "report": "compare collected results: report.html, charts, tables "
    "(twinbench report results/sweeps/<dir>)",
    "collect": "gather result.json files into one Parquet/CSV table",
    "parity": "equivalence certificate of a model in both frameworks (twinbench parity mlp)",
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
        from twinbench.run import main_from_command_line

        sys.argv = ["twinbench run", *rest]  # Hydra reads its overrides from sys.argv
        main_from_command_line()
        return 0
    if command in ("report", "collect", "mlflow"):
        from analysis.__main__ import main as analysis_main

        return analysis_main([command, *rest])
    if command == "parity":
        from twinbench.parity import main as parity_main

        return parity_main(rest)
    fail(f"unknown command '{command}'; choose one of: {', '.join(COMMANDS)}")
