"""Is a slow stretch the software's or the machine's? Speed states in time, with and without
a framework.

    python -m benchmarks.speed_states probe [--seconds 60] [--chunk-ms 20] [--out F]
    python -m benchmarks.speed_states steps <run or sweep folder> ... [--window 10]
    python -m benchmarks.speed_states placement [--rounds 12] [--seconds 4] [--mib 180]

Software causes of a slow epoch (an array adapter's per-epoch shuffle, tf.data's autotuner, the
garbage collector, page faults after huge pages were or were not granted) are tied to the
program: to an epoch boundary, a process, or a framework. A machine cause (another tenant on the
host's core or its SMT sibling, the host's frequency, the hypervisor) is tied to wall-clock
time: it starts and ends anywhere, in any program.

`probe` runs three fixed kernels in turn, in chunks of about `--chunk-ms`, on every allowed core
at once (one pinned process per core, no framework): a pure-Python integer loop (the core alone,
first-level cache), 64 MiB copies (main-memory bandwidth) and a 384x384 matrix product (the
vector units, second-level cache). Per second it prints each kernel's median chunk time over its
fast level. A slow state here cannot come from a framework, an allocator or a data pipeline;
which kernels slow down says which shared resource the machine is short of.

`steps` reads twinbench's per-step times (steps.json of each run folder) and splits each run
into windows of `--window` steps; per run it prints the window medians epoch by epoch, and
counts the changes between the fast and the slow state that fall inside an epoch against those
at an epoch boundary. Changes inside epochs, at no fixed step, say the cause is not the
training loop's structure.

`placement` asks whether a fresh process has a speed of its own, fixed when its memory is
placed. Each round starts two fresh processes at once, one per core; each fills an array the size
of MNIST's training images (touching every page, so placing it) and times random 128-row gathers
from it, mlp's input path without a framework. The two processes of a round live through the
same seconds, so the machine's phases cancel in their ratio: a ratio that stays put second by
second inside a round but differs between rounds is a per-process level. Each process also
reports how much of its memory the kernel gave it in transparent huge pages.

A window is slow when its median exceeds the run's (or core's) fast level, the 25th percentile
of its window medians, by more than `--threshold` (default 15%).

This module holds the states and `steps`; `benchmarks/machine_probe.py` holds `probe` and
`placement`.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.speed_levels import SLOW_THRESHOLD, state_changes


def step_runs(paths: Sequence[Path]) -> list[Path]:
    """Every folder holding a steps.json under the given run or sweep folders."""
    found: list[Path] = []
    for p in paths:
        if not p.exists():
            raise SystemExit(f"{p}: no such folder; give a run or sweep folder of twinbench")
        found += sorted(f.parent for f in p.rglob("steps.json"))
    if not found:
        raise SystemExit("no steps.json under the given folders: run twinbench first")
    return found


def run_steps(args: argparse.Namespace) -> dict[str, Any]:
    result: dict[str, Any] = {}
    inside = boundary = 0
    for run in step_runs(args.folders):
        data = json.loads((run / "steps.json").read_text())
        scale = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}[data.get("unit", "ns")]
        epochs = [[x * scale for x in e] for e in data["per_epoch"]]
        c = state_changes(epochs, args.window, args.threshold)
        result[str(run)] = c
        if c["slow_share"] is None:
            print(f"{run}: too few steps for windows of {args.window}")
            continue
        inside, boundary = inside + c["inside"], boundary + c["boundary"]
        level = c["fast_level"]
        epochs_text = " | ".join(
            " ".join(f"{m / level:4.2f}" for m in e) for e in c["window_medians"]
        )
        print(f"{run}\n    {epochs_text}")
        print(
            f"    slow {c['slow_share']:.0%} of windows; changes inside epochs {c['inside']}, "
            f"at epoch boundaries {c['boundary']}"
        )
    print(f"all runs: {inside} changes of state inside epochs, {boundary} at epoch boundaries")
    return result


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    sub = p.add_subparsers(dest="command", required=True)
    pr = sub.add_parser("probe", help="a framework-free loop on every core, in time")
    pr.add_argument("--seconds", type=float, default=60)
    pr.add_argument("--chunk-ms", type=float, default=20)
    pl = sub.add_parser("placement", help="per-process levels: two fresh processes at once")
    pl.add_argument("--rounds", type=int, default=12)
    pl.add_argument("--seconds", type=float, default=4)
    pl.add_argument("--mib", type=int, default=180, help="array size: MNIST's 60000 x 784 floats")
    pl.add_argument("--batch", type=int, default=128, help="rows per gather: mlp's batch")
    pl.add_argument("--gathers", type=int, default=20, help="gathers per timed chunk")
    pl.add_argument("--out", type=Path, help="write every figure to this JSON file")
    st = sub.add_parser("steps", help="twinbench's per-step times, window by window")
    st.add_argument("folders", nargs="+", type=Path)
    st.add_argument("--window", type=int, default=10, help="steps per window")
    for q in (pr, st):
        q.add_argument("--threshold", type=float, default=SLOW_THRESHOLD)
        q.add_argument("--out", type=Path, help="write every figure to this JSON file")
    args = p.parse_args(argv)
    if args.command == "probe" and (args.seconds <= 0 or args.chunk_ms <= 0):
        p.error("--seconds and --chunk-ms must be positive")
    if args.command == "steps" and args.window < 1:
        p.error("--window must be at least 1 step")
    if args.command == "placement" and min(args.rounds, args.mib, args.batch, args.gathers) < 1:
        p.error("--rounds, --mib, --batch and --gathers must be at least 1")
    if args.command == "placement" and args.seconds <= 0:
        p.error("--seconds must be positive")
    # the machine's kernels live beside, imported here: they need the state definitions above
    from benchmarks.machine_probe import run_placement, run_probe

    commands = {"probe": run_probe, "steps": run_steps, "placement": run_placement}
    result = commands[args.command](args)
    if args.out:
        args.out.write_text(json.dumps(result, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
