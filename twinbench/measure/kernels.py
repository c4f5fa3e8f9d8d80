"""Which kernels a framework really ran: a short probe process with the libraries' verbose logs.

MKL (torch's sgemm) prints a line per call with MKL_VERBOSE=1 and its ISA in a header;
oneDNN (torch's mkldnn ops, TensorFlow's oneDNN ops) prints one line per primitive executed
with ONEDNN_VERBOSE=1 (DNNL_VERBOSE=1 in older builds), naming the primitive, the
implementation and its ISA (e.g. "brgemm:avx512_core"). Both slow every call down, so they
never run in a measured process: the probe is a fresh process with the run's spec, cores and
settings, which trains a few steps of the same model and exits; this module parses its output.
Ops that print nothing ran elsewhere (Eigen in TensorFlow, torch's native kernels).

Usage (the worker calls `probe`): python -m twinbench.measure.kernels <run_dir>
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from twinbench.measure import bf16_evidence

VERBOSE_ENV = {"MKL_VERBOSE": "1", "ONEDNN_VERBOSE": "1", "DNNL_VERBOSE": "1"}
PROBE_STEPS = 3
# Callers outside a run (measurements' after-the-fact probes); a run passes its own
# measure.kernel_probe_timeout_s from conf/config.yaml.
TIMEOUT_S = 1800.0
MKL_CALL = re.compile(r"^MKL_VERBOSE\s+([A-Z_][A-Z0-9_]*)\(")
MKL_ISA = re.compile(r"(Intel\(R\) [^,]*?enabled processors?|AVX[\w-]*|SSE[\w.]*)")
# The probe's last line: the runtimes its process had loaded (none but the run's own, as in the
# worker, so that the logs hold the measured runtime's kernels only).
RUNTIMES_LINE = "twinbench probe runtimes:"


def parse(text: str) -> dict[str, Any]:
    """Counts of MKL functions and oneDNN primitive implementations, and the ISAs they name."""
    mkl_calls: Counter[str] = Counter()
    onednn: Counter[str] = Counter()
    mkl_header = onednn_isa = runtimes = None
    for line in text.splitlines():
        line = line.strip()
        if line.startswith(RUNTIMES_LINE):
            runtimes = line.removeprefix(RUNTIMES_LINE).split()
        elif line.startswith("MKL_VERBOSE"):
            call = MKL_CALL.match(line)
            if call:
                mkl_calls[call.group(1)] += 1
            elif mkl_header is None:
                mkl_header = line.removeprefix("MKL_VERBOSE").strip()
        elif line.startswith(("onednn_verbose", "dnnl_verbose")):
            fields = line.split(",")
            if "isa:" in line and onednn_isa is None:
                onednn_isa = next(f for f in fields if f.startswith("isa:")).removeprefix("isa:")
            if "exec" in fields:
                # ...,exec,<engine>,<primitive>,<implementation>,<propagation>,...
                i = fields.index("exec")
                if len(fields) > i + 3:
                    onednn[f"{fields[i + 2]} {fields[i + 3]}".strip()] += 1
    isa = MKL_ISA.search(mkl_header or "")
    return {
        "mkl": {
            "header": mkl_header,
            "isa": isa.group(1) if isa else None,
            "calls": dict(mkl_calls.most_common()),
        },
        "onednn": {"isa": onednn_isa, "primitives": dict(onednn.most_common())},
        "summary": summary(mkl_calls, onednn, onednn_isa),
        "runtimes_in_process": runtimes,
    }


def summary(mkl_calls: Counter, onednn: Counter, onednn_isa: str | None) -> str:
    parts = []
    if mkl_calls:
        parts.append("MKL " + ", ".join(f"{k} x{n}" for k, n in mkl_calls.most_common(3)))
    # Reorders only convert layouts between primitives: the compute kernels say more.
    compute = Counter({k: n for k, n in onednn.items() if not k.startswith("reorder")})
    if compute:
        parts.append("oneDNN " + ", ".join(f"{k} x{n}" for k, n in compute.most_common(4)))
    if onednn_isa:
        parts.append(f"oneDNN ISA: {onednn_isa}")
    return "; ".join(parts) or "no MKL or oneDNN calls logged (Eigen or native kernels)"


def probe(
    run_dir: Path, timeout_s: float = TIMEOUT_S, precision: str = "float32"
) -> dict[str, Any]:
    """Run the probe process for the run in `run_dir` (its spec.json) and parse what it logged;
    `bf16` says per op type which kernel and ISA ran and flags a bfloat16 run whose products
    did not run on bfloat16 units (bf16_evidence.py)."""
    from twinbench.launch import lifeline

    env = lifeline.child_env({**os.environ, **VERBOSE_ENV})  # it dies with this process
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "twinbench.measure.kernels", str(run_dir)],
            capture_output=True, text=True, env=env, timeout=timeout_s,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return {"error": f"kernel probe took over {timeout_s:.0f} s"}
    record = parse(proc.stdout + "\n" + proc.stderr)
    record["bf16"] = bf16_evidence.verdict(
        precision, record["onednn"]["primitives"], record["mkl"]["calls"]
    )
    if record["bf16"]["flag"]:
        record["summary"] += "; FLAG: " + record["bf16"]["flag"]
    if proc.returncode != 0:
        tail = proc.stderr.strip().splitlines()[-1:] or ["no output"]
        record["error"] = tail[0]
    record["steps"] = PROBE_STEPS
    return record


def _train_a_few_steps(run_dir: Path) -> None:
    """The probe process: the run's own spec, cores, threads and settings, a few steps."""
    from benchdata import batching, fill_arch, holdout, load
    from frameworks import get_backend, registry
    from frameworks.base import TrainPlan
    from frameworks.settings import settings_of
    from frameworks.timing import RunClock
    from twinbench.config.spec import spec_from_file
    from twinbench.worker.pinning import SPEC_FILE, apply_cpu_budget

    spec = spec_from_file(run_dir / SPEC_FILE)
    # As in the worker: Keras' seeding would load TensorFlow into a Keras-on-JAX or -on-torch
    # probe, and TensorFlow's lite converter JAX into a TensorFlow one; their start-up is not the
    # run's, and their kernels have no place in its log.
    registry.keep_to_own_runtime(spec.backend)
    apply_cpu_budget(spec)
    mc = spec.model_cfg
    data = load(mc["dataset"], spec.data["source"], spec.seed, mc.get("view"), spec.data)
    data = holdout.apply(data, mc)
    mc = fill_arch(mc, data)
    backend = get_backend(spec.backend)
    backend.configure_threads(spec.threads, spec.interop_threads)
    backend.apply_settings(settings_of(spec.backend_cfg))
    backend.set_precision(spec.precision)
    backend.seed(spec.seed)
    plan = TrainPlan(
        epochs=1,
        batch_size=spec.batch_size,
        steps_per_epoch=batching.steps_per_epoch(len(data.x_train), spec.batch_size, PROBE_STEPS),
        eval_steps=1,
        orders=batching.epoch_permutations(len(data.x_train), 1, spec.seed),
        seed=spec.seed,
        device=spec.device,
        verbose=False,
    )
    model = backend.build(spec.model, mc, spec.device)
    backend.train(model, mc, data, plan, RunClock())
    print(RUNTIMES_LINE, *registry.loaded_runtimes(), flush=True)


if __name__ == "__main__":
    from twinbench.launch import lifeline

    lifeline.die_with_parent()  # first: the probe never outlives the worker that started it
    _train_a_few_steps(Path(sys.argv[1]))
