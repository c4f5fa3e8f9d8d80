"""`twinbench bench <name> [arguments]`: run one of benchmarks/ (twinbench measuring itself).

A benchmark is a module of the benchmarks package that runs as a script (`python -m
benchmarks.<name>`, which stays the same command); its arguments are its own, passed through
untouched. The list and the one-line descriptions come from the modules' docstrings, read
without importing them (a benchmark may import a framework at the top).

The benchmarks are part of the checkout, not of the installed package: several compare against
git history or start run.py beside them.
"""

from __future__ import annotations

import ast
import importlib.util
import runpy
import sys
from pathlib import Path

from twinbench.config.checks import fail
from twinbench.launch import lifeline
from twinbench.paths import WORK_ROOT

PACKAGE = "benchmarks"
SCRIPT_GUARD = 'if __name__ == "__main__":'  # what makes a module of benchmarks/ a command


def _folder() -> Path | None:
    spec = importlib.util.find_spec(PACKAGE)
    if spec is not None and spec.submodule_search_locations:
        return Path(next(iter(spec.submodule_search_locations)))
    # The installed command's sys.path holds its own bin/, not the working directory: run from
    # a checkout, it found no benchmarks while the checkout's benchmarks/ held twelve (issue 45).
    here = WORK_ROOT / PACKAGE
    return here if (here / "__init__.py").is_file() else None


def _importable(folder: Path) -> None:
    """Put the checkout that holds `folder` on sys.path, where `python -m` would have it."""
    root = str(folder.parent)
    if importlib.util.find_spec(PACKAGE) is None and root not in sys.path:
        sys.path.insert(0, root)


def available() -> dict[str, str]:
    """Benchmark name -> the first line of its docstring, in name order."""
    folder = _folder()
    if folder is None:
        return {}
    found = {}
    for path in sorted(folder.glob("*.py")):
        source = path.read_text()
        if path.stem.startswith("_") or SCRIPT_GUARD not in source:
            continue  # a helper module (benchmarks/pairs.py), not a command
        doc = ast.get_docstring(ast.parse(source)) or ""
        found[path.stem] = " ".join(doc.strip().split("\n\n")[0].split())  # first paragraph
    return found


def listing(prog: str) -> str:
    """`twinbench bench --help`: what each benchmark measures."""
    benches = available()
    lines = [f"usage: {prog} <benchmark> [its arguments]", "", __doc__.split("\n\n")[0], ""]
    if not benches:
        lines.append("no benchmarks here: they ship with the checkout, not the installed package")
        return "\n".join(lines)
    width = max(map(len, benches))
    lines += ["benchmarks:", *(f"  {n:<{width}}  {text}" for n, text in benches.items())]
    lines += ["", f"{prog} <benchmark> --help describes a benchmark's arguments, where it has any."]
    return "\n".join(lines)


@lifeline.stops_on_signals("twinbench bench", "what the benchmark finished writing is kept")
def main(argv: list[str], prog: str) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(listing(prog))
        return 0
    name, rest = argv[0], argv[1:]
    benches = available()
    if name not in benches:
        where = ", ".join(benches) or (
            f"none in {WORK_ROOT} (they ship with the checkout: run this from one)"
        )
        fail(f"unknown benchmark '{name}'; choose one of: {where}")
    folder = _folder()
    if folder is not None:  # found, since `name` is among its benchmarks
        _importable(folder)
    saved = sys.argv
    sys.argv = [f"{prog} {name}", *rest]  # what `python -m benchmarks.<name>` would see
    try:
        runpy.run_module(f"{PACKAGE}.{name}", run_name="__main__", alter_sys=True)
    except SystemExit as exc:  # the benchmark's own exit status
        return _status(exc.code)
    finally:
        sys.argv = saved
    return 0


def _status(code: object) -> int:
    """An exit status as the interpreter would turn SystemExit's code into one."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    print(code, file=sys.stderr)  # a message: printed, exit status 1
    return 1
