"""The installed `twinbench` command: one entry point in front of every tool (commands.py holds
them). Kept apart from twinbench/config/checks.py, whose helpers those tools import: the
dispatcher imports the tools, so the tools must not import the dispatcher."""

from __future__ import annotations

import sys

from twinbench.cli.commands import COMMANDS
from twinbench.config.checks import fail
from twinbench.config.choices import unknown_choice

PROG = "twinbench"


def usage() -> str:
    width = max(map(len, COMMANDS))
    lines = [f"usage: {PROG} <command> [arguments]", "", "commands:"]
    lines += [f"  {name:<{width}}  {c.summary}" for name, c in COMMANDS.items()]
    lines += ["", f"{PROG} <command> --help describes a command's arguments."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    """`twinbench <command> [arguments]`: the command's exit status."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help", "help"):
        print(usage())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in COMMANDS:
        fail(str(unknown_choice("command", name, COMMANDS)))
    return COMMANDS[name].main(rest, f"{PROG} {name}")


if __name__ == "__main__":
    sys.exit(main())
