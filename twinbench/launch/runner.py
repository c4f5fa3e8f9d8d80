"""The parent side of a run: validate, start fresh worker processes, make sure results exist.

A job = one configuration, measured `repeats` times, each repeat in its own fresh worker.
This module never imports a framework: thread settings are fixed when a framework first loads,
so that must happen in the worker, once, with the budget already applied.
"""

from __future__ import annotations

import collections
import contextlib
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

from twinbench.config.spec import ConfigError, RunSpec, build_spec
from twinbench.launch import failed, lifeline, repeats, slurm, turns
from twinbench.launch.machine_lock import measurement_lock  # re-exported: where callers look
from twinbench.paths import REPO_ROOT, WORK_ROOT
from twinbench.result import results
from twinbench.stacks.prepare import interpreter as stack_interpreter
from twinbench.ui import live, progress
from twinbench.worker import pinning

SPEC_FILE = "spec.json"
LOG_FILE = "worker.log"
STDERR_TAIL_LINES = 40
SPAWN_NS_ENV = "TWINBENCH_SPAWN_NS"  # parent's perf_counter_ns at spawn: CLOCK_MONOTONIC is
# system-wide on Linux, so the worker can measure its own start-up against it


class TimeLimitExceeded(RuntimeError):
    pass


# What one measurement leaves in its directory; force=true archives them together.
RUN_FILES = (results.RESULT_FILE, "steps.json", LOG_FILE, SPEC_FILE)


def _archive_existing(run_dir: Path) -> None:
    """Never overwrite an earlier run: move its files aside together, under one free number.

    result.json becomes result.previous-N.json, steps.json steps.previous-N.json, and so on, and
    the archived record's steps_file names its own archived steps, not the next run's.
    """
    if not (run_dir / results.RESULT_FILE).exists():
        return
    n = 1
    while any((run_dir / _archived(name, n)).exists() for name in RUN_FILES):
        n += 1
    for name in RUN_FILES:
        if (run_dir / name).exists():
            (run_dir / name).rename(run_dir / _archived(name, n))
    archived = run_dir / _archived(results.RESULT_FILE, n)
    try:
        record = results.read(archived)
    except (OSError, ValueError):
        return  # kept as it was: unreadable records are archived, not repaired
    if record.get("steps_file"):
        record["steps_file"] = _archived(record["steps_file"], n)
        results.write_atomic(archived, record)


def _archived(name: str, n: int) -> str:
    stem, dot, ext = name.partition(".")
    return f"{stem}.previous-{n}{dot}{ext}"


def _worker_env(budget_env: dict[str, str]) -> dict[str, str]:
    env = {**os.environ, **budget_env}  # the budget's variables before the worker imports numpy
    # The worker imports the project's packages from the repository, wherever Hydra runs.
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO_ROOT), env.get("PYTHONPATH")]))
    env[lifeline.PARENT_PID_ENV] = str(os.getpid())
    env[SPAWN_NS_ENV] = str(time.perf_counter_ns())
    return env


def _kill_group(proc: subprocess.Popen) -> None:
    """SIGKILL the worker and everything it started (its own process group), then reap it."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGKILL)
    proc.wait()


def start_worker(
    run_dir: Path,
    time_limit_s: float | None = None,
    quiet: bool = False,
    budget_env: dict[str, str] | None = None,
    pauses: list[float] | None = None,
    interpreter: str | None = None,
) -> tuple[int, list[str]]:
    """Run the worker; its stdout (progress) goes to logging and the terminal through
    live.Relay, its stderr to worker.log.

    Returns the exit code (negative: killed by that signal) and the last lines of stderr.
    Raises TimeLimitExceeded after killing a worker that ran past `time_limit_s`. A Ctrl-Z
    stops the worker too; each pause's length is appended to `pauses`. `interpreter`: the
    stack's (twinbench/stacks/), else this process' own.
    """
    cmd = [interpreter or sys.executable, "-u", "-m", "twinbench.worker", str(run_dir)]
    tail: collections.deque[str] = collections.deque(maxlen=STDERR_TAIL_LINES)
    # Half of a pair that takes turns (twinbench/launch/turns.py): it may have to wait for its
    # partner's start-up, and its worker inherits the two pipes the turns pass through.
    side = turns.current()
    turn_env, turn_fds = side.spawn_env() if side else ({}, ())
    # Unbuffered: on a full disk a write fails at once, and closing has nothing left to flush.
    with open(run_dir / LOG_FILE, "wb", buffering=0) as log:
        # Its own session: a terminal's Ctrl-C goes to the parent alone, which stops the worker
        # (lifeline.py); the worker also dies by the kernel's hand if the parent is killed.
        proc = subprocess.Popen(
            cmd,
            cwd=WORK_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            env={**_worker_env(budget_env or {}), **turn_env},
            start_new_session=True,
            pass_fds=turn_fds,
        )

        def drain() -> None:
            writable = True
            for line in proc.stderr:
                tail.append(line.rstrip("\n"))
                if writable:
                    try:
                        log.write(line.encode())
                    except OSError:  # disk full: keep reading, or the worker blocks on the pipe
                        writable = False

        # From the moment the worker exists: a Ctrl-C that arrived while the threads below were
        # starting left the worker alive, and when the parent's exit closed its pipes it wrote a
        # failed record (BrokenPipeError) where a stopped run leaves none (2026-12-06).
        try:
            if side:
                side.spawned(proc)
            reader = threading.Thread(target=drain, daemon=True)
            reader.start()
            relay = threading.Thread(
                target=live.Relay(quiet=quiet or progress.screen_quiet).run,
                args=(proc.stdout,),
                daemon=True,
            )
            relay.start()
            with lifeline.suspend_together(proc.pid, [] if pauses is None else pauses):
                rc = proc.wait(timeout=time_limit_s)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            reader.join()
            relay.join()
            raise TimeLimitExceeded(f"run exceeded its time limit of {time_limit_s:g} s") from None
        except BaseException:  # Ctrl-C or a launcher's signal: never leave a worker behind
            _kill_group(proc)
            raise
        reader.join()
        relay.join()
    if side and side.aborted:  # the sweep was stopped: its pair leaves no record, as a lone run
        raise lifeline.Interrupted(signal.SIGINT)
    return rc, list(tail)


def measure_once(spec: RunSpec, config: dict[str, Any], run_dir: Path) -> dict[str, Any]:
    """One fresh worker measuring `config`; returns its record (written to run_dir too)."""
    run_dir.mkdir(parents=True, exist_ok=True)
    _archive_existing(run_dir)
    results.write_atomic(run_dir / SPEC_FILE, config)  # a full disk leaves no partial spec
    result_path = run_dir / results.RESULT_FILE
    pauses: list[float] = []
    try:
        interpreter = stack_interpreter(config)  # built by the sweep's checks: found at once
    except ConfigError as exc:
        record = failed.failed_record(config, f"ConfigError: {exc}", error_kind="config")
        results.write_atomic(result_path, record)
        return record
    try:
        rc, stderr_tail = start_worker(
            run_dir,
            spec.time_limit_s,
            bool(config.get("quiet")),
            budget_env=pinning.budget_environment(spec),
            pauses=pauses,
            interpreter=interpreter,
        )
    except TimeLimitExceeded as exc:
        record = failed.failed_record(config, str(exc), error_kind="time_limit")
        results.write_atomic(result_path, record)
        return record
    slurm.leave_if_preempted(rc)
    if result_path.exists():
        return _flag_pauses(result_path, pauses)
    # The worker died before it could write anything (killed, out of memory, segfault).
    how = f"killed by signal {-rc}" if rc < 0 else f"exit code {rc}"
    if rc == -signal.SIGKILL:
        how += " (out of memory?)"
    last = next((line for line in reversed(stderr_tail) if line.strip()), "no output")
    record = failed.failed_record(
        config, f"worker {how}: {last}", stderr_tail=stderr_tail, error_kind="crash"
    )
    results.write_atomic(result_path, record)
    return record


def _flag_pauses(result_path: Path, pauses: list[float]) -> dict[str, Any]:
    """The worker's record; one that was suspended (Ctrl-Z) while it measured carries the
    pauses, which its clock could not leave out, and says so on the terminal."""
    record = results.read(result_path)
    if pauses:
        record["suspended_s"] = pauses
        results.write_atomic(result_path, record)
        print(
            f"twinbench: warning: this run was suspended for {sum(pauses):.1f} s while it "
            "measured; its times include the pause (recorded as suspended_s): re-run it with "
            "force=true for a clean figure",
            file=sys.stderr,
            flush=True,
        )
    return record


def _reusable(path: Path, key: str) -> dict[str, Any] | None:
    """A finished measurement of the same configuration, which a resumed sweep need not repeat."""
    try:
        record = results.read(path)
    except (OSError, ValueError):
        return None
    clean = record.get("status") == "ok" and not record.get("suspended_s")  # a pause inside
    return record if clean and record.get("run_key") == key else None


def run_job(config: dict[str, Any], run_dir: Path) -> list[dict[str, Any]]:
    """Validate `config` and measure it as its repeats strategy says (repeats.py: a fixed
    number, one slot of an interleaved sweep, or until stable), each repeat in a fresh worker.

    Returns the records, one per repeat measured here (also on disk). Finished repeats of the
    same configuration are kept and skipped unless `force` is set.
    """
    run_dir.mkdir(parents=True, exist_ok=True)
    try:
        spec = build_spec(config)
        # Record the budget actually resolved (cpus=null means "all allowed cores").
        resolved = {
            **config,
            "cpus": spec.cpus,
            "threads": spec.threads,
            "interop_threads": spec.interop_threads,
            "epochs": spec.epochs,
        }
        strategy = repeats.choose(spec, resolved)
    except ConfigError as exc:
        _archive_existing(run_dir)
        record = failed.failed_record(config, f"ConfigError: {exc}", error_kind="config")
        results.write_atomic(run_dir / results.RESULT_FILE, record)
        return [record]
    config = resolved
    key = results.run_key(config)
    if spec.allow_parallel:
        print(
            "twinbench: warning: allow_parallel=true: runs may share this machine's cores and "
            "memory bandwidth with other runs; their timings are distorted",
            file=sys.stderr,
            flush=True,
        )
    oversubscribed = spec.oversubscribed()
    if oversubscribed:  # once per job, before it runs; the worker's record carries it in `flags`
        print(f"twinbench: warning: {oversubscribed}", file=sys.stderr, flush=True)

    def measure_repeat(i: int, rep_dir: Path, pair: str | None) -> dict[str, Any]:
        rep_config = {**config, "repeat": i, "run_key": key, "pair_id": pair}
        # The reuse check belongs under the lock too: an identical sweep running alongside may
        # have measured this run while this one waited for its turn.
        with measurement_lock(None if spec.allow_parallel else spec.lock_file):
            done = None if spec.force else _reusable(rep_dir / results.RESULT_FILE, key)
            if done is not None:
                print(f"  resume: {rep_dir} already measured (run_key {key}); skipped", flush=True)
                return done
            return measure_once(spec, rep_config, rep_dir)

    return strategy.measure(run_dir, measure_repeat)


def summary(record: dict[str, Any], tty: bool | None = None) -> str:
    """After one measured run: a head line and a table of what it measured (twinbench.ui.live)."""
    head = f"{record['backend']} {record['model']} cpus={record['cpus']}"
    if record.get("repeats") == "auto":
        head += f" repeat {record['repeat'] + 1} (repeats=auto)"
    elif record.get("repeats", 1) > 1:
        head += f" repeat {record['repeat'] + 1}/{record['repeats']}"
    if record["status"] != "ok":
        return f"{head}: FAILED: {record['error']}"
    from twinbench.ui.live import table_text

    tty = sys.stdout.isatty() if tty is None else tty
    head += f"  device={record['device']}  params={record['params']:,}"
    return head + "\n" + table_text(summary_rows(record), tty)


def summary_rows(record: dict[str, Any]) -> list[tuple[str, str]]:
    """What one finished run measured, as (label, value) rows."""
    req, act, t = record["threads_requested"], record["threads_actual"], record["timing"]
    hist, flops = record["history"], record.get("flops") or {}
    step = t["steady_step_s"]
    # The last validated epoch's values: epochs between validations hold null (validate_every).
    val_loss = [v for v in hist["val_loss"] if v is not None]
    val_acc = [v for v in hist["val_accuracy"] if v is not None]
    rows = [
        (
            "threads",
            f"intra/inter requested {req['intra_op']}/{req['inter_op']}, running "
            f"{act['intra_op']}/{act['inter_op']} (verified)  affinity {record['affinity']}",
        ),
        ("epoch", f"{t['epoch_s']['median']:.2f}s median of {t['epoch_s']['n']}"),
        (
            "steady step",
            f"{step['median'] * 1e3:.2f} ms [{step['ci_low'] * 1e3:.2f}, "
            f"{step['ci_high'] * 1e3:.2f}] ({step['confidence']:.0%} CI, {step['n']} steps"
            + (f" in {step['batches']} batches)" if step.get("batches") else ")")
            if step
            else f"none: all steps lie in the warm-up of {t['warmup_steps']} (see WARNING)",
        ),
        (
            "throughput",
            f"{t['steady_samples_per_s']:,.0f} samples/s" if step else "none (no steady step)",
        ),
        (
            "start-up",
            f"{record['startup']['total_s']:.2f}s (import "
            f"{record['startup']['framework_import_s']:.2f}s, "
            + (  # records before 2026-12-05 have no train set-up
                f"train set-up {record['startup']['train_setup_s']:.2f}s, "
                if "train_setup_s" in record["startup"]
                else ""
            )
            + f"first step {record['startup']['first_step_s']:.3f}s)",
        ),
        (
            "final",
            f"loss {hist['loss'][-1]:.4f} acc {hist['accuracy'][-1]:.4f}  "
            + (
                f"val_loss {val_loss[-1]:.4f} val_acc {val_acc[-1]:.4f}"
                if val_loss
                else "no validation"
            ),
        ),
    ]
    if flops.get("fraction_of_peak") is not None:
        rows.append(
            (
                "compute",
                f"{flops['achieved_gflops']:.1f} GFLOP/s = {flops['fraction_of_peak']:.0%} of the "
                f"{flops['peak_gflops']:.1f} GFLOP/s "
                + (
                    "machine peak on these cores (best library's GEMM)"
                    if record.get("machine_peak")
                    else "matmul peak of this framework with these threads"
                ),
            )
        )
    if t.get("drift") and t["drift"]["drifting"]:
        rows.append(
            (
                "WARNING",
                f"steps drifted: last third {t['drift']['ratio_last_to_first_third']:.2f}x "
                "the first third",
            )
        )
    if step and step["unstable"]:
        rows.append(("WARNING", "unstable: the step-time interval is wider than the threshold"))
    rows += [("WARNING", flag) for flag in record.get("flags", [])]
    return rows


def repeats_summary(summary_record: dict[str, Any]) -> str:
    s = summary_record.get("steady_step_s")
    if not s and summary_record.get("no_steady_state"):
        return "no repeat has a steady step: the runs are too short for their warm-up (flags)"
    if not s:
        return f"all {summary_record['repeats']} repeats failed"
    flag = "  UNSTABLE" if s["unstable"] else ""
    return (
        f"over {s['n']} repeats: steady step median {s['median'] * 1e3:.2f} ms, "
        f"[{s['ci_low'] * 1e3:.2f}, {s['ci_high'] * 1e3:.2f}] ms ({s['confidence']:.0%} CI), "
        f"spread {s['min'] * 1e3:.2f}-{s['max'] * 1e3:.2f} ms{flag}"
    )
