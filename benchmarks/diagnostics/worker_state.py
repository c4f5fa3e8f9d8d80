"""Fresh processes, TF bilstm 60 steps x 3 epochs: twinbench's worker, the same with malloc's
dynamic thresholds fixed, and the bare loop. Steady train time, minor faults, CPU. Output kept in
measurements/2026-11-30/worker-state-bilstm.txt.

    python -m benchmarks.diagnostics.worker_state 2    # rounds
"""

from __future__ import annotations

import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from twinbench.paths import REPO_ROOT

PY = sys.executable
# malloc's dynamic mmap and trim thresholds pinned at fixed values
FIXED = {"MALLOC_MMAP_THRESHOLD_": "131072", "MALLOC_TRIM_THRESHOLD_": "134217728"}


def run(cmd: list[str], env_extra: dict[str, str] | None = None):
    """The finished command, its minor faults, CPU seconds and system seconds."""
    env = {**os.environ, **(env_extra or {})}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    out = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=REPO_ROOT)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (
        out,
        after.ru_minflt - before.ru_minflt,
        (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        after.ru_stime - before.ru_stime,
    )


def twinbench(env_extra: dict[str, str] | None = None):
    with tempfile.TemporaryDirectory() as d:
        _, flt, cpu, sys_s = run(
            [
                PY,
                "run.py",
                "backend=tensorflow",
                "model=bilstm",
                "cpus=2",
                "epochs=3",
                "max_steps=60",
                "measure.peak_probe=false",
                f"hydra.run.dir={d}",
            ],
            env_extra,
        )
        r = json.loads((Path(d) / "result.json").read_text())
        return statistics.median(r["train_times_s"][1:]), flt, cpu, sys_s


def bare(env_extra: dict[str, str] | None = None):
    out, flt, cpu, sys_s = run(
        [PY, "-m", "benchmarks.bare_loop", "tensorflow", "bilstm", "2", "60", "3"], env_extra
    )
    return (
        statistics.median(json.loads(out.stdout.strip().splitlines()[-1])["epoch_s"][1:]),
        flt,
        cpu,
        sys_s,
    )


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    for r in range(int(args[0]) if args else 2):
        for name, fn, env in (
            ("twinbench", twinbench, None),
            ("twinbench+fixed-malloc", twinbench, FIXED),
            ("bare", bare, None),
            ("bare+fixed-malloc", bare, FIXED),
        ):
            t, flt, cpu, sys_s = fn(env)
            print(
                f"round {r} {name:<24} steady train {t:.3f} s  minor faults {flt:>9}  "
                f"CPU {cpu:.1f} s (sys {sys_s:.1f})",
                flush=True,
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
