"""Shared fixtures: the CLI as users run it, and configs composed from the real conf/."""

from __future__ import annotations

import json
import os
import queue
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from frameworks import registry
from twinbench.config.spec import group_choices
from twinbench.machine import cpu
from twinbench.paths import REPO_ROOT

from . import sharing

CORES = len(cpu.allowed_cpus())


# --- sharing the machine between xdist workers (tests/sharing.py says why) -------------------


def pytest_xdist_auto_num_workers(config) -> int:
    """`-n auto`: one worker per core this process may use (not per core the host has: a
    cgroup or taskset of 2 on a 64-core host means 2)."""
    return max(1, CORES)


def pytest_configure(config) -> None:
    config._twinbench_own_tmpdir = sharing.own_tmpdir()
    if getattr(config, "workerinput", None) is None:  # the controller: workers inherit it
        config._twinbench_xla_cache = sharing.share_jax_compilations()


def pytest_unconfigure(config) -> None:
    sharing.remove_tmpdir(getattr(config, "_twinbench_own_tmpdir", None))
    sharing.remove_tmpdir(getattr(config, "_twinbench_xla_cache", None))


def pytest_xdist_make_scheduler(config, log):
    """Whole files, and the files that share a session fixture together, on one worker."""
    return sharing.FilesAndTheirSharers(config, log)


def pytest_collection_modifyitems(config, items) -> None:
    unlisted = sharing.unlisted_sharers(items)
    if unlisted:
        raise pytest.UsageError(
            "list these in tests/sharing.py SHARED_FIXTURES: " + "; ".join(unlisted)
        )
    mismatch = sharing.serial_files_mismatch(items)
    if mismatch:
        raise pytest.UsageError("tests/sharing.py SERIAL_FILES: " + "; ".join(mismatch))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """Setup, call and teardown of each test (module fixtures included) under this run's test
    lock: alone for `serial` tests, beside others for the rest."""
    run_dir = item.config._tmp_path_factory.getbasetemp().parent
    serial = item.get_closest_marker("serial") is not None
    keep = nextitem is not None and nextitem.get_closest_marker("serial") is not None
    with sharing.machine_share(serial, run_dir, keep=serial and keep):
        yield


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """How long each worker sat at the test lock (tests/sharing.py): time the suite spent with a
    core idle because a serial test was running or waiting. It grows when a serial test lands
    beside a long one; the contributor page says what to do then."""
    if getattr(config, "workerinput", None) is not None:
        return  # a worker: the controller prints the line once
    waited = sharing.waits(config._tmp_path_factory.getbasetemp())
    if waited:
        each = ", ".join(f"{worker} {seconds:.0f} s" for worker, seconds in waited.items())
        terminalreporter.write_line(f"waited at the test lock (a serial test alone): {each}")


def run_cli(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """`python run.py ARGS` from the repository root, as the README tells users to run it."""
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    affinity = sharing.child_affinity(args)
    return subprocess.run(
        [sys.executable, "run.py", *args],
        cwd=REPO_ROOT,
        preexec_fn=(lambda: os.sched_setaffinity(0, affinity)) if affinity else None,
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
    )


def read_result(run_dir: Path) -> dict:
    return json.loads((Path(run_dir) / "result.json").read_text())


@pytest.fixture
def compose():
    """Compose conf/ with overrides through Hydra's compose API, as run.py would."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir
    from omegaconf import OmegaConf

    def _compose(*overrides: str) -> dict:
        with initialize_config_dir(str(REPO_ROOT / "conf"), version_base="1.3"):
            cfg = hydra_compose("config", overrides=list(overrides))
        return OmegaConf.to_container(cfg, resolve=True)

    return _compose


# --- one installed copy for every installed-copy test ----------------------------------------

INSTALL_SKIP = shutil.ignore_patterns(
    ".venv", ".git", "results", "build", "*.egg-info", "__pycache__", "site"
)


@pytest.fixture(scope="session")
def installed_site(tmp_path_factory) -> Path:
    """`pip install --no-deps --target SITE` of a copy of the sources: what a user's installed
    copy holds, the venv supplying the dependencies. A copy, never the checkout itself, so the
    checkout gains no build/ folder."""
    src, site = tmp_path_factory.mktemp("src") / "twinbench", tmp_path_factory.mktemp("site")
    shutil.copytree(REPO_ROOT, src, ignore=INSTALL_SKIP)
    pip = [sys.executable, "-m", "pip", "install", "--no-deps", "--no-build-isolation", "-q"]
    subprocess.run([*pip, "--target", str(site), str(src)], check=True, timeout=600)
    return site


# --- every backend trains every model: one tiny sweep per backend, read by several modules -----

# tests/sharing.py keeps the files that read these sweeps on one worker, so they are built once.


EVERY_BACKEND_TINY = (
    "cpus=1",
    "epochs=1",
    "max_steps=2",
    "measure.warmup_steps=1",
    "measure.peak_probe=false",
    "report=false",  # report.html is walked once, by test_runs' multirun test
)


# The backends' sweeps, longest first, so that the last one to start is a short one: on the Zen 5
# TensorFlow's ten runs took 115 s (4 s import and 1.6 s tracing each), Keras on JAX's about 90
# (XLA compiles), Keras on torch's and torch's well under that. Two fixed lanes of two backends
# put both long ones on one core (about 210 s against 120 s on the other).
SWEEPS_LONGEST_FIRST = ("tensorflow", "keras_jax", "keras_torch", "torch")


def sweep_order(backends: list[str]) -> list[str]:
    """`backends` in the order their sweeps start: the known long ones first, any other after."""
    known = [b for b in SWEEPS_LONGEST_FIRST if b in backends]
    return known + [b for b in backends if b not in known]


# Over 60 s (about 440 s on the Zen 3 before the data cache and report=false): 40 fresh
# workers, one per backend and model, each paying its framework's import; that is the check
# (every pair from the CLI). It is built once per test run for three files.
@pytest.fixture(scope="session")
def every_backend_sweeps(tmp_path_factory):
    """backend -> (the sweep's exit status and stderr, model -> its result record): every
    model, `EVERY_BACKEND_TINY`, one sweep per backend (tests/test_every_backend.py checks them
    all; the image and text model tests read their own models' records).

    The backends' sweeps run in lanes, one per core this test may use: each lane takes the next
    sweep from one queue (`sweep_order`) when its last one ends, on its own core (a thread's
    affinity is what its children inherit) and under its own measurement lock. Every run is
    cpus=1 and this checks behaviour, not speed, so two cores finish the sweeps in about half
    the time with nothing else changed."""
    cache: dict[str, tuple] = {}
    waiting = queue.SimpleQueue()
    for backend in sweep_order(registry.names()):
        waiting.put(backend)

    def sweep(backend: str, core: int) -> tuple:
        out = tmp_path_factory.mktemp(f"sweep-{backend}")
        proc = run_cli(
            "-m",
            f"backend={backend}",
            f"model={','.join(group_choices('model'))}",
            *EVERY_BACKEND_TINY,
            f"hydra.sweep.dir={out}",
            f"measure.lock_file={out}/lane-{core}.lock",
            timeout=1500,
        )
        records = {}
        for path in sorted(Path(out).rglob("result.json")):
            record = json.loads(path.read_text())
            records[record["model"]] = record
        return proc.returncode, proc.stderr[-3000:], records

    def lane(core: int) -> None:
        os.sched_setaffinity(0, {core})  # this thread only: its run.py processes inherit it
        while True:
            try:
                backend = waiting.get_nowait()
            except queue.Empty:
                return
            try:
                cache[backend] = sweep(backend, core)
            except Exception as exc:  # e.g. the timeout: the test of this backend says so
                cache[backend] = (None, f"the sweep did not finish: {exc!r}", {})

    threads = []
    for core in cpu.allowed_cpus()[: len(registry.names())]:
        threads.append(threading.Thread(target=lane, args=(core,), daemon=True))
        threads[-1].start()
    # Every lane ends inside this fixture's setup: no sweep may run on beside the tests that come
    # after it (a serial test among them would no longer be alone).
    for thread in threads:
        thread.join()
    return cache.__getitem__


needs_two_cores = pytest.mark.skipif(CORES < 2, reason="needs at least 2 allowed cores")


# Over 60 s on the Zen 3 (about 64 s): four fresh runs, two frameworks' imports each; built once
# per test run for the budget, profile and result-schema tests.
@pytest.fixture(scope="session")
def tiny_sweep(tmp_path_factory):
    """mlp and cnn on both frameworks, 2 epochs of 8 steps, one core: four fresh workers
    (shared by the budget and profile tests; `extra` overrides make another sweep)."""
    return _tiny_sweep(tmp_path_factory.mktemp("tiny_sweep"), "report=false")


TINY_SWEEP = (
    "-m",
    "backend=torch,tensorflow",
    "model=mlp,cnn",
    "cpus=1",
    "epochs=2",
    "max_steps=8",
    "measure.warmup_steps=2",
    "measure.peak_probe=false",
)


def _tiny_sweep(out: Path, *extra: str):
    proc = run_cli(*TINY_SWEEP, *extra, f"hydra.sweep.dir={out}")
    assert proc.returncode == 0, proc.stderr[-3000:]
    records = [read_result(p.parent) | {"_dir": p.parent} for p in sorted(out.rglob("result.json"))]
    return proc, records


# --- two tiny stacks (twinbench/stacks/): one build for every stack test ---------------------

# six is small, pure Python and in the project's environment at another version (1.17.0): a
# stack that pins an older one shows that its own version, not the project's, is what runs.
TINY_STACK_PINS = {"six-1.16": "six==1.16.0", "six-1.15": "six==1.15.0"}


@pytest.fixture(scope="session")
def tiny_stacks(tmp_path_factory) -> dict:
    """Two environments built by uv into a fresh cache folder, a few seconds each: the cache
    folder and each stack's (name, config node, environment folder)."""
    from twinbench.stacks import build, definition

    root = tmp_path_factory.mktemp("stack_cache")
    settings = definition.cache_settings({"cache_dir": str(root)})
    built = {}
    for name, pin in TINY_STACK_PINS.items():
        node = {"name": name, "pins": [pin]}
        built[name] = (node, build.ensure(definition.from_config(node), settings, lambda _: None))
    return {"cache_dir": root, "stacks": built}
