"""The parent side of a run: validate, start a fresh worker process, make sure a result exists.

This module never imports a framework: thread settings are fixed when a framework first loads,
so that must happen in the worker, once, with the budget already applied.
"""

from __future__ import annotations

import collections
import json
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

from twinbench import REPO_ROOT, results
from twinbench.config import ConfigError, build_spec
from twinbench.worker import SPEC_FILE

LOG_FILE = "worker.log"
STDERR_TAIL_LINES = 40


def _archive_existing(run_dir: Path) -> None:
    """Never overwrite an earlier result: move it aside under a unique name."""
    old = run_dir / results.RESULT_FILE
    if old.exists():
        n = 1
        while (run_dir / f"result.previous-{n}.json").exists():
            n += 1
        old.rename(run_dir / f"result.previous-{n}.json")


def start_worker(run_dir: Path, timeout_s: float | None = None) -> tuple[int, list[str]]:
    """Run the worker; its stdout (progress) passes through, its stderr goes to worker.log.

    Returns the exit code (negative: killed by that signal) and the last lines of stderr.
    """
    cmd = [sys.executable, "-u", "-m", "twinbench.worker", str(run_dir)]
    tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
    with open(run_dir / LOG_FILE, "w") as log:
        proc = subprocess.Popen(
            cmd, cwd=REPO_ROOT, stderr=subprocess.PIPE, text=True, env=_worker_env()
        )

        def drain() -> None:
            for line in proc.stderr:
                log.write(line)
                tail.append(line.rstrip("\n"))

        reader = threading.Thread(target=drain, daemon=True)
        reader.start()
        try:
            rc = proc.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
            reader.join()
            raise
        reader.join()
    return rc, list(tail)


def _worker_env() -> dict[str, str]:
    import os

    env = dict(os.environ)
    # The worker imports the project's packages from the repository, wherever Hydra runs.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    return env


def run_job(config: dict[str, Any], run_dir: Path) -> dict[str, Any]:
    """Validate `config`, run it in a fresh worker, and return the result record (also on disk)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    _archive_existing(run_dir)
    try:
        spec = build_spec(config)
    except ConfigError as exc:
        record = results.failed_record(config, f"ConfigError: {exc}", error_kind="config")
        results.write_atomic(run_dir / results.RESULT_FILE, record)
        return record

    # Record the budget actually resolved (cpus=null means "all allowed cores").
    config = {
        **config,
        "cpus": spec.cpus,
        "threads": spec.threads,
        "interop_threads": spec.interop_threads,
        "epochs": spec.epochs,
    }
    (run_dir / SPEC_FILE).write_text(json.dumps(config, indent=2))
    rc, stderr_tail = start_worker(run_dir)

    result_path = run_dir / results.RESULT_FILE
    if result_path.exists():
        return results.read(result_path)
    # The worker died before it could write anything (killed, out of memory, segfault).
    how = f"killed by signal {-rc}" if rc < 0 else f"exit code {rc}"
    last = next((line for line in reversed(stderr_tail) if line.strip()), "no output")
    record = results.failed_record(
        config, f"worker {how}: {last}", stderr_tail=stderr_tail, error_kind="crash"
    )
    results.write_atomic(result_path, record)
    return record


def summary(record: dict[str, Any]) -> str:
    """A few lines for the terminal after one run."""
    head = f"{record['backend']} {record['model']} cpus={record['cpus']}"
    if record["status"] != "ok":
        return f"{head}: FAILED: {record['error']}"
    import statistics

    req, act = record["threads_requested"], record["threads_actual"]
    hist = record["history"]
    return "\n".join(
        [
            f"{head}  device={record['device']}  params={record['params']:,}",
            f"  threads intra/inter requested {req['intra_op']}/{req['inter_op']}, "
            f"running {act['intra_op']}/{act['inter_op']} (verified)  "
            f"affinity {record['affinity']}",
            f"  epoch time median {statistics.median(record['epoch_times_s']):.2f}s over "
            f"{len(record['epoch_times_s'])} epochs (first {record['epoch_times_s'][0]:.2f}s)  "
            f"samples/s median {statistics.median(record['samples_per_s']):,.0f}",
            f"  final loss {hist['loss'][-1]:.4f} acc {hist['accuracy'][-1]:.4f}  "
            f"val_loss {hist['val_loss'][-1]:.4f} val_acc {hist['val_accuracy'][-1]:.4f}",
        ]
    )
