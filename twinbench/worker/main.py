"""The measured process: one run, one framework, in a fresh interpreter.

Order matters and is the point of this module; `run` is the list of phases
(twinbench/worker/phases.py, then twinbench/worker/assemble.py):
1. pin: CPU affinity and the native thread variables (no framework loaded yet);
2. data: load the data set (numpy only);
3. probes: the machine's GEMM peak and the model's speed of light, in their own processes;
4. import: exactly one framework adapter, its thread settings applied and read back (a
   mismatch fails the run);
5. train: build the model and train under the run clock;
6. profile: looks after the last timed step (profiler, kernel probe);
7. assemble: the record, written to result.json atomically by `main`.

Usage: python -m twinbench.worker <run_dir>   (reads <run_dir>/spec.json)
"""

from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path
from typing import Any

from frameworks import registry
from twinbench.config.spec import RunSpec, spec_from_file
from twinbench.launch import failed
from twinbench.machine import environment
from twinbench.result import results
from twinbench.stacks import readback
from twinbench.worker import phases
from twinbench.worker.assemble import assemble, timing_record
from twinbench.worker.phases import STEPS_FILE, NonFiniteLoss, machine_peak_record
from twinbench.worker.pinning import SPEC_FILE

# where callers have imported them from
__all__ = ["STEPS_FILE", "NonFiniteLoss", "machine_peak_record", "run", "timing_record"]
T_WORKER_NS = time.perf_counter_ns()  # as early as this process can read the clock


def run(spec: RunSpec, run_dir: Path) -> dict[str, Any]:
    """One measured run, phase by phase; its record as result.json holds it."""
    started = environment.now_iso()
    pinned = phases.pin(spec)
    # The stack's pins as this interpreter runs them, before anything is measured: a pin that
    # does not hold fails the run here (twinbench/stacks/readback.py).
    stack = readback.stack_block(
        spec.config.get("stack") or {"name": "pinned"}, registry.spec(spec.backend).packages
    )
    label = f"{spec.backend} {spec.model} cpus={spec.cpus}"
    loaded = phases.load_data(spec, label)
    probes = phases.run_probes(spec, label, loaded.model_cfg)
    fw = phases.import_framework(spec, label, probes.peak_gflops)
    trained = phases.train(spec, label, fw, loaded, run_dir)
    looks = phases.profile(spec, fw, loaded, trained, run_dir)
    record = assemble(
        spec, started, T_WORKER_NS, pinned, loaded, probes, fw, trained, looks, stack=stack
    )
    return record.to_json()


def main(argv: list[str]) -> int:
    from twinbench.launch import lifeline

    lifeline.die_with_parent()
    run_dir = Path(argv[1])
    raw = results.read(run_dir / SPEC_FILE)
    try:
        spec = spec_from_file(run_dir / SPEC_FILE)
        registry.keep_to_own_runtime(spec.backend)  # this process: one runtime, the measured one
        record = run(spec, run_dir)
    except Exception as exc:  # recorded, never lost: the parent reports it as a failed run
        kind = "non_finite_loss" if isinstance(exc, NonFiniteLoss) else "exception"
        record = failed.failed_record(
            raw,
            f"{type(exc).__name__}: {exc}",
            error_kind=kind,
            traceback=traceback.format_exc(),
        )
        results.write_atomic(run_dir / results.RESULT_FILE, record)
        print(f"error: {record['error']}", file=sys.stderr, flush=True)
        return 1
    results.write_atomic(run_dir / results.RESULT_FILE, record)
    return 0
