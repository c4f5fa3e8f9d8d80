"""The command line: bad input is one line and a non-zero exit, before any training starts."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from twinbench.launch.runner import run_job
from twinbench.paths import REPO_ROOT

from .conftest import CORES, run_cli


@pytest.mark.parametrize(
    ("args", "message"),
    [
        ([f"cpus={CORES + 6}"], f"cpus={CORES + 6} but this process may use only {CORES} cores"),
        (["cpus=0"], "cpus must be at least 1"),
        (["threads=0"], "threads must be at least 1"),
        (["backend=jax"], "unknown backend 'jax'; choose one of: keras_jax, keras_torch, tens"),
        (["model=resnet"], "unknown model 'resnet'; choose one of: "),
        (["-m", "backend=torch,tensorflow", "cpus=1,0"], "cpus must be at least 1"),
        (["cpus=two"], "cpus must be a whole number"),
        (["repeats=abc"], "repeats must be a whole number >= 1 or auto, got 'abc'"),
        (["pricing=gce_2017_preemptible"], "prices are chosen in the report: "),
        # before the plan line too: the sweeper's own check came only after it
        (["-m", "+experiment=compare", "backend=torch"], "compares two sides a pair"),
        (["-m", "+experiment=compare", "backend=torch,tensorflow,keras_jax"], "this one gives 3"),
    ],
)
def test_bad_input_exits_non_zero_with_one_line(args, message, tmp_path):
    proc = run_cli(*args, f"hydra.run.dir={tmp_path}", f"hydra.sweep.dir={tmp_path}")
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1, proc.stderr
    assert lines[0].startswith("twinbench: error: ") and message in lines[0]
    assert "Traceback" not in proc.stderr
    assert "plan:" not in proc.stdout, "a plan printed for a sweep that is refused"
    assert not list(tmp_path.rglob("worker.log")), "a worker was started for bad input"


def test_cuda_without_gpu_is_one_line_error(tmp_path):
    from twinbench.machine import cpu

    if cpu.gpu_visible():
        pytest.skip("a GPU is visible here")
    proc = run_cli("device=cuda", f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 2
    assert proc.stderr.strip() == (
        "twinbench: error: device=cuda but no NVIDIA GPU is visible on this machine; use device=cpu"
    )


def test_cuda_on_tensorflow_is_one_line_error_before_any_worker(tmp_path):
    proc = run_cli("backend=tensorflow", "device=cuda", f"hydra.run.dir={tmp_path}")
    assert proc.returncode == 2
    (line,) = proc.stderr.strip().splitlines()
    assert line.startswith("twinbench: error: device=cuda with backend=tensorflow: ")
    assert "Traceback" not in proc.stderr
    assert not list(tmp_path.rglob("worker.log")), "a worker was started for a refused device"


def test_bad_values_reaching_a_job_are_recorded_as_failed_without_starting_a_worker(
    compose, tmp_path
):
    (record,) = run_job(compose(f"cpus={CORES + 1}"), tmp_path)
    assert record["status"] == "failed" and record["error_kind"] == "config"
    assert f"may use only {CORES} cores" in record["error"]
    assert (tmp_path / "result.json").exists()
    assert not (tmp_path / "worker.log").exists()


def test_the_parent_process_never_imports_a_framework():
    code = (
        "import sys; sys.argv=['run.py']; import run, twinbench.launch, twinbench.cli.sweep_end, "
        "twinbench.cli.main, analysis.load.table, frameworks, models, benchdata; "
        "from twinbench.config import checks; "
        "checks.validate_overrides(['-m','backend=torch,tensorflow','cpus=1']);"
        "import models.mlp; "
        "bad=[m for m in ('torch','tensorflow','keras') if m in sys.modules]; "
        "print(bad); sys.exit(1 if bad else 0)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr


def test_help_shows_twinbenchs_groups_keys_and_examples():
    proc = run_cli("--help")
    assert proc.returncode == 0
    out = proc.stdout
    assert "model: bilstm, charlstm, cifar10_cnn, cnn" in out and "opt: default, tuned" in out
    assert "cpus=N" in out and "quiet=true" in out and "+experiment=compare" in out
    assert "Powered by Hydra" not in out  # not Hydra's generic page


def test_a_worker_leaves_without_teardown_but_with_everything_it_wrote(tmp_path):
    """Workers and parity stages skip the interpreter's teardown (0.75-1.1 s of a framework's
    modules freed after the record is written): what they printed or logged must still arrive,
    though a pipe's buffer is lost when a process ends with os._exit unflushed."""
    code = (
        "import logging, logging.handlers, sys\n"
        "from twinbench.launch.lifeline import leave_without_teardown\n"
        f"to_file = logging.FileHandler({str(tmp_path / 'log.txt')!r})\n"
        "held = logging.handlers.MemoryHandler(100, target=to_file)  # flushed at shutdown\n"
        "logging.getLogger('w').addHandler(held)\n"
        "logging.getLogger('w').warning('logged line')\n"
        "print('last printed line')\n"
        "sys.stderr.write('last error line')\n"
        "import ctypes; ctypes.CDLL(None).printf(b'from C\\n')  # C's stdout buffer\n"
        "leave_without_teardown(3)\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}  # pipes buffered
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, env=env, capture_output=True, text=True,
        timeout=60,
    )  # fmt: skip
    assert proc.returncode == 3
    assert proc.stdout == "last printed line\nfrom C\n" and proc.stderr == "last error line"
    assert "logged line" in (tmp_path / "log.txt").read_text()
    # the worker's and the parity stage's entry points use it
    for entry in ("twinbench/worker/__main__.py", "twinbench/parity/__main__.py"):
        assert "leave_without_teardown(main(" in (REPO_ROOT / entry).read_text()
