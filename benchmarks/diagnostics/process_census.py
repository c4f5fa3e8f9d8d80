"""Where a test run's CPU goes, process by process: every Python process writes, at exit, its CPU
seconds, its command, the frameworks it imported and the test that started it (pytest's
PYTEST_CURRENT_TEST, which child processes inherit); then a summary by kind of process and by
test file. Used for docs/findings/2026-12-03-test-suite-budget.md (sixth round).

    python -m benchmarks.diagnostics.process_census install .venv LOGDIR   # into that venv
    .venv/bin/python -m pytest                                             # any run
    python -m benchmarks.diagnostics.process_census summary LOGDIR
    python -m benchmarks.diagnostics.process_census uninstall .venv

The hook is a sitecustomize.py in the venv's site-packages, so it follows every interpreter of
that venv whatever PYTHONPATH a test sets; processes killed by a signal write nothing.
"""

from __future__ import annotations

import argparse
import collections
import json
import sys
from pathlib import Path

HOOK = '''"""twinbench process census (benchmarks/diagnostics/process_census.py): one JSON file per
Python process at exit."""
import atexit, json, os, resource, sys, time

_start = time.time()


def _census():
    try:
        used = resource.getrusage(resource.RUSAGE_SELF)
        line = {
            "argv": sys.argv[:6], "wall": time.time() - _start,
            "cpu": used.ru_utime + used.ru_stime,
            "imported": [m for m in ("torch", "tensorflow", "jax", "pandas", "matplotlib")
                         if m in sys.modules],
            "test": os.environ.get("PYTEST_CURRENT_TEST", ""),
        }
        with open(os.path.join(LOGDIR, f"{os.getpid()}.json"), "w") as f:
            f.write(json.dumps(line))
    except Exception:
        pass


atexit.register(_census)
'''


def _site_packages(venv: Path) -> Path:
    return next(Path(venv).glob("lib/python3*/site-packages"))


def kind(argv: list[str]) -> str:
    """What a process was, from its command line."""
    first = argv[0] if argv else ""
    if first == "-c":
        return "python -c (pytest-xdist's workers)"
    for tail, name in (
        ("pytest", "pytest"),
        ("twinbench/worker/__main__.py", "run worker"),
        ("run.py", "run.py parent"),
        ("twinbench/parity/__main__.py", "parity stage"),
    ):
        if first.endswith(tail):
            return name
    return Path(first).name or "?"


def summary(logdir: Path) -> str:
    rows = [json.loads(p.read_text()) for p in sorted(Path(logdir).glob("*.json"))]
    by_kind: dict[tuple[str, str], list[float]] = collections.defaultdict(list)
    by_file: dict[str, list[float]] = collections.defaultdict(list)
    for r in rows:
        frameworks = [m for m in r["imported"] if m in ("torch", "tensorflow", "jax")]
        by_kind[(kind(r["argv"]), ",".join(frameworks) or "-")].append(r["cpu"])
        by_file[r["test"].split("::")[0] or "(no test)"].append(r["cpu"])
    total = sum(r["cpu"] for r in rows)
    lines = [f"{len(rows)} processes, {total:.1f} CPU-s", "", "CPU-s  processes  kind (frameworks)"]
    for (name, fw), cpu in sorted(by_kind.items(), key=lambda kv: -sum(kv[1]))[:20]:
        lines.append(f"{sum(cpu):5.1f}  {len(cpu):9d}  {name} ({fw})")
    lines += ["", "CPU-s  processes  test file (every process it started, itself included)"]
    for name, cpu in sorted(by_file.items(), key=lambda kv: -sum(kv[1]))[:20]:
        lines.append(f"{sum(cpu):5.1f}  {len(cpu):9d}  {name}")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.diagnostics.process_census")
    sub = parser.add_subparsers(dest="action", required=True)
    install = sub.add_parser("install")
    install.add_argument("venv", type=Path)
    install.add_argument("logdir", type=Path)
    sub.add_parser("uninstall").add_argument("venv", type=Path)
    sub.add_parser("summary").add_argument("logdir", type=Path)
    args = parser.parse_args(argv)
    if args.action == "summary":
        print(summary(args.logdir))
        return
    target = _site_packages(args.venv) / "sitecustomize.py"
    if args.action == "uninstall":
        target.unlink(missing_ok=True)
        return
    if target.exists() and "process census" not in target.read_text():
        sys.exit(f"error: {target} exists and is not the census hook; not replaced")
    args.logdir.mkdir(parents=True, exist_ok=True)
    target.write_text(f"LOGDIR = {str(args.logdir.resolve())!r}\n" + HOOK)
    print(f"census hook: {target}; each process writes to {args.logdir}")


if __name__ == "__main__":
    main()
