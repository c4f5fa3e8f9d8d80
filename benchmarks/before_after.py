"""Did a change to the training path cost speed? twinbench now vs twinbench at a git ref.

    python -m benchmarks.before_after <git ref> [--models mlp cnn] [--backends torch tensorflow]
                                      [--pairs 6] [--steps 100] [--epochs 3] [--cpus N]

The ref's files are exported (`git archive`, no checkout or worktree is touched) to a temporary
folder and run with this Python; the working tree is the "after" side. Both train the same
configuration in interleaved fresh processes; prints after / before per epoch (training part)
with the exact interval of the paired ratios and the verdict against the speed goal (the change
keeps at least 98% of the earlier speed, beyond its interval). Run it before merging a change to
frameworks/, models/ or the worker, e.g. `python -m benchmarks.before_after main`.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import tarfile
import tempfile
from pathlib import Path

from benchmarks import pairs
from twinbench.machine import cpu
from twinbench.paths import REPO_ROOT


def export(ref: str, into: Path) -> str:
    """Write the files of `ref` under `into`; returns the commit it names."""
    commit = subprocess.run(
        ["git", "rev-parse", "--verify", f"{ref}^{{commit}}"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
    )
    if commit.returncode != 0:
        raise SystemExit(f"before_after: error: '{ref}' is not a commit in {REPO_ROOT}")
    archive = subprocess.run(
        ["git", "archive", "--format=tar", commit.stdout.strip()],
        cwd=REPO_ROOT,
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")
    return commit.stdout.strip()


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("ref", help="the 'before' commit, branch or tag")
    p.add_argument("--models", nargs="+", default=["mlp", "cnn"])
    p.add_argument("--backends", nargs="+", default=pairs.BACKENDS, choices=pairs.BACKENDS)
    p.add_argument("--pairs", type=int, default=6)
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--cpus", type=int, default=len(cpu.allowed_cpus()))
    args = p.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="twinbench-before-") as before_root:
        commit = export(args.ref, Path(before_root))
        print(
            f"after (working tree) / before ({args.ref} = {commit[:10]}), training time per "
            f"epoch; {args.pairs} interleaved pairs, {args.steps} steps x {args.epochs - 1} "
            f"timed epochs, cpus={args.cpus}",
            flush=True,
        )
        for backend in args.backends:
            for model in args.models:
                label = f"{backend:<11}{model:<8}"
                print(label, flush=True)
                common = (backend, model, args.cpus, args.epochs, args.steps, False)

                def after(common=common):
                    return pairs.twinbench(*common)

                def before(common=common):
                    return pairs.twinbench(*common, root=Path(before_root))

                summary = pairs.summarise(pairs.interleave(after, before, args.pairs, print))
                print(pairs.line(label, summary), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
