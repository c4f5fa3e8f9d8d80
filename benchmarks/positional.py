"""The positional command lines of the one-process benchmarks (attention.py, optimizer_step.py)
and of the bare loop the speed tables start (bare_loop.py), checked before any work: `--help`
describes them, and a bad backend, model or count is one usage line and exit 2, not a traceback
from inside the framework set-up. The choices are read from conf/ (twinbench.config.choices),
which loads nothing else: a bare loop sets its thread budget after parsing, before numpy loads."""

from __future__ import annotations

import argparse

from twinbench.config.choices import group_choices


def parser(doc: str | None) -> argparse.ArgumentParser:
    """A parser whose help is the module's docstring (its usage line and what it measures)."""
    return argparse.ArgumentParser(
        description=doc, formatter_class=argparse.RawDescriptionHelpFormatter
    )


def count(text: str) -> int:
    """A whole number of at least 1: cores, steps, rounds, epochs."""
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def add_backend(p: argparse.ArgumentParser) -> None:
    p.add_argument("backend", choices=group_choices("backend"))


def add_model(p: argparse.ArgumentParser, default: str | None = None) -> None:
    """The workload; optional where the benchmark has a default."""
    optional = {} if default is None else {"nargs": "?", "default": default}
    p.add_argument("model", choices=group_choices("model"), **optional)


def add_counts(p: argparse.ArgumentParser, defaults: dict[str, int | None]) -> None:
    """Positional counts in order; a default of None makes the count required."""
    for name, default in defaults.items():
        optional = {} if default is None else {"nargs": "?", "default": default}
        p.add_argument(name, type=count, **optional)
