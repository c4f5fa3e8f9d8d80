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
import subprocess
import sys

import pytest

from frameworks import registry
from models.catalog import model_config
from twinbench.config.spec import group_choices
from twinbench.paths import REPO_ROOT

# The sweeps are conftest's `every_backend_sweeps`, which tests/test_image_models.py and
# test_text_models.py read too. Not serial: they check behaviour, not speed, and a serial
# fixture of eight minutes first waited for whatever the other worker had in flight.

MODELS = group_choices("model")


@pytest.fixture(scope="module")
def sweeps(every_backend_sweeps):
    return every_backend_sweeps


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
    # Its own runtime only, though every runtime is installed: without registry's
    # keep_to_own_runtime, Keras' set_random_seed loads TensorFlow and TensorFlow's lite
    # converter and Keras' orbax callback load JAX into workers that never compute in them.
    assert record["framework"]["runtimes_in_process"] == [registry.spec(backend).runtime]
    assert len(record["history"]["loss"]) == 1 and record["steps_per_epoch"] == 2
    # What its training parts spent in the kernel, read beside their CPU time (the report's
    # "in the kernel" and "page faults per step")
    used = record["resources"]
    assert used["system_time_training_steps_s"] >= 0 and used["minor_faults_training_steps"] >= 0
    # Start-up, phase by phase: the named phases explain it, the rest is the worker's own
    # set-up (before 2026-12-05 the optimizer's construction, 0.9 s of torch's 2.8, was in no
    # phase, and the report's start-up chart drew bars a third too short).
    startup = record["startup"]
    assert startup["train_setup_s"] > 0
    phases = ("process_start_s", "framework_import_s", "data_s", "build_s", "train_setup_s",
              "first_step_s")  # fmt: skip
    rest = startup["total_s"] - sum(startup[p] for p in phases)
    assert 0 <= rest < 0.25 * startup["total_s"], startup
    # The loop fingerprint (frameworks/loop_print.py): the 2 capped batches it actually fed
    (loop,) = record["history"]["loop"]
    assert loop["train_samples"] == min(2 * record["batch_size"], record["data"]["n_train"])
    # Its subnormals were counted over every trained weight, the optimizer's state and one
    # batch's predictions, each read back through the backend's own runtime
    found = record["subnormals"]
    assert "error" not in found, found
    assert found["values"]["parameters"] == record["params"]
    assert found["values"]["optimizer_state"] > 0 and found["values"]["predictions"] > 0
    # glibc's malloc as it comes, read back from glibc, and subnormals as each runtime comes:
    # computed on torch's (native and Keras on it alike), flushed by TensorFlow's
    settings = record["settings"]
    assert settings["allocator"]["mode"] == "default" and settings["allocator"]["variables"] == {}
    if registry.spec(backend).runtime != "jax":
        assert settings["flush_denormal"] is (registry.spec(backend).runtime == "tensorflow")
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
# feeding.py); Keras on TensorFlow gathers the same order in its own tf.data pipeline.
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
