"""Every registered backend trains every workload from the command line: the test is generated
from frameworks/registry.py and conf/model/, so a new backend or model is covered without
editing it.

One sweep per backend (`-m model=<all>`): each run still gets its own fresh worker, as every
measured run does, but the parent, Hydra and the sweep's set-up are paid once per backend.
Two steps of one epoch on synthetic data: this checks that the pair trains and records a
verified budget, not how fast.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from frameworks import registry
from models.catalog import model_config
from twinbench.config.spec import group_choices
from twinbench.machine import cpu
from twinbench.paths import REPO_ROOT

from .conftest import run_cli

pytestmark = pytest.mark.serial  # its lanes use every core themselves (tests/sharing.py)

MODELS = group_choices("model")
TINY = ("cpus=1", "epochs=1", "max_steps=2", "measure.warmup_steps=1", "measure.peak_probe=false")


def lanes(backends: list[str], cores: list[int]) -> list[tuple[int, list[str]]]:
    """The backends' sweeps dealt out over the cores, one lane per core: (core, its backends)."""
    return [(core, backends[i :: len(cores)]) for i, core in enumerate(cores[: len(backends)])]


@pytest.fixture(scope="module")
def sweeps(tmp_path_factory):
    """backend -> (the sweep's exit status and stderr, model -> its result record).

    The backends' sweeps run in lanes, one per core this test may use, each lane's sweeps one
    after the other on its own core (a thread's affinity is what its children inherit) and under
    its own measurement lock: every run is cpus=1 and this checks behaviour, not speed, so two
    cores finish the module in about half the time with nothing else changed."""
    cache: dict[str, tuple] = {}

    def sweep(backend: str, core: int) -> tuple:
        out = tmp_path_factory.mktemp(f"sweep-{backend}")
        proc = run_cli(
            "-m",
            f"backend={backend}",
            f"model={','.join(MODELS)}",
            *TINY,
            f"hydra.sweep.dir={out}",
            f"measure.lock_file={out}/lane-{core}.lock",
            timeout=1500,
        )
        records = {}
        for path in sorted(Path(out).rglob("result.json")):
            record = json.loads(path.read_text())
            records[record["model"]] = record
        return proc.returncode, proc.stderr[-3000:], records

    def lane(core: int, backends: list[str]) -> None:
        os.sched_setaffinity(0, {core})  # this thread only: its run.py processes inherit it
        for backend in backends:
            try:
                cache[backend] = sweep(backend, core)
            except Exception as exc:  # e.g. the timeout: the test of this backend says so
                cache[backend] = (None, f"the sweep did not finish: {exc!r}", {})

    threads = {}
    for core, backends in lanes(registry.names(), cpu.allowed_cpus()):
        thread = threading.Thread(target=lane, args=(core, backends), daemon=True)
        thread.start()
        threads.update(dict.fromkeys(backends, thread))

    def result(backend: str) -> tuple:
        threads[backend].join()
        return cache[backend]

    return result


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("backend", registry.names())
def test_every_backend_trains_every_model_from_the_cli(sweeps, backend, model):
    returncode, stderr, records = sweeps(backend)
    assert model in records, f"no result for {backend} {model}:\n{stderr}"
    record = records[model]
    assert record["status"] == "ok", record.get("error")
    assert record["backend"] == backend
    # The budget was applied and verified the backend's own way, and the record says how.
    assert record["threads_actual"] == record["threads_requested"]
    assert record["threads_verified_by"]
    assert record["affinity"] == [record["affinity"][0]]  # cpus=1: one core
    assert record["framework"]["framework"] == backend and record["framework"]["version"]
    assert len(record["history"]["loss"]) == 1 and record["steps_per_epoch"] == 2
    # The loop fingerprint (frameworks/loop_print.py): the 2 capped batches it actually fed
    (loop,) = record["history"]["loop"]
    assert loop["train_samples"] == min(2 * record["batch_size"], record["data"]["n_train"])
    # A language model's text after training (conf/model `sample`), timed apart; none otherwise
    wanted = model_config(model).get("sample")
    if wanted:
        sample = record["sample"]
        assert sample["tokens"] == len(sample["text"]) == wanted["tokens"]
        assert sample["tokens_per_s"] > 0 and len(sample["prompt"]) == record["config"]["model"][
            "view"]["maxlen"]  # fmt: skip
    else:
        assert record.get("sample") is None
    assert returncode == 0, stderr


# Keras runtimes that train from numpy batches through SharedOrderBatches (frameworks/keras/
# common.py); Keras on TensorFlow gathers the same order in its own tf.data pipeline.
NUMPY_FED = [n for n in registry.names() if registry.spec(n).api == "keras" and n != "tensorflow"]


@pytest.mark.parametrize("backend", NUMPY_FED)
def test_keras_fit_trains_on_the_shared_batch_order_epoch_by_epoch(backend):
    """fit would shuffle a PyDataset's batches itself (shuffle=True is its default) and an
    epoch counter kept by the dataset would run ahead of Keras' look-ahead: each epoch must get
    exactly its own permutation's batches, in order."""
    proc = subprocess.run(
        [sys.executable, "-m", "tests.keras_order_checks", backend],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    seen = json.loads(proc.stdout.strip().splitlines()[-1])
    requested, expected = seen["requested"], seen["expected"]
    extra = len(requested) - len(expected)
    assert requested[extra:] == expected
    # Keras reads the first batch once more beforehand, to learn its shapes: nothing else.
    assert requested[:extra] == [expected[0]] * extra
