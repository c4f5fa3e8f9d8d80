"""Run a command with transparent huge pages off for it and everything it starts.

    python -m benchmarks.thp_off <command> [arguments...]

prctl(PR_SET_THP_DISABLE) is per process, inherited by children and kept across exec, so the
machine's setting (/sys/kernel/mm/transparent_hugepage/enabled, shared with every other
process) is never touched. The kernel's own report (/proc/self/status, THP_enabled) is checked
before the command starts: a kernel that ignores the call stops here rather than measuring a
variant that is not what its name says.
"""

from __future__ import annotations

import ctypes
import os
import shutil
import sys
from pathlib import Path

PR_SET_THP_DISABLE = 41  # linux/prctl.h
USAGE = "usage: python -m benchmarks.thp_off <command> [arguments...]"


def thp_enabled() -> str | None:
    """This process' THP_enabled line of /proc/self/status (None: the kernel has none)."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("THP_enabled:"):
            return line.split(":", 1)[1].strip()
    return None


def main(argv: list[str]) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__ if argv else USAGE, file=sys.stdout if argv else sys.stderr)
        return 0 if argv else 2
    if shutil.which(argv[0]) is None:  # exec would raise FileNotFoundError, a traceback
        print(f"thp_off: no such command: {argv[0]}\n{USAGE}", file=sys.stderr)
        return 2
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.prctl(PR_SET_THP_DISABLE, 1, 0, 0, 0) != 0:
        print(f"thp_off: prctl failed: {os.strerror(ctypes.get_errno())}", file=sys.stderr)
        return 1
    if thp_enabled() not in ("0", None):
        print(f"thp_off: the kernel still reports THP_enabled {thp_enabled()}", file=sys.stderr)
        return 1
    os.execvp(argv[0], argv)
    return 1  # not reached: exec replaces this process


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
