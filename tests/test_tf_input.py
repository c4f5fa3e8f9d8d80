"""TensorFlow's input to fit (frameworks/keras/on_tensorflow.py).

Validation (TensorFlowBackend.validation): the same batches Keras' array adapter cuts from the
numpy arrays, so the same val_loss, without tf.data's autotuner, whose wake-up an iterator's
deletion waits for: seconds inside an epoch, at random
(docs/findings/2026-12-02-new-host-verdict-flips.md).

Training (TensorFlowBackend._batches): the shared order's batches, with the batch size known to
Keras' traced step where every batch is full (docs/findings/2026-12-05-static-batch-shape.md).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from twinbench.paths import REPO_ROOT


@pytest.fixture(scope="module")
def seen() -> dict:
    # KERAS_BACKEND named: a test that imported a Keras-on-torch or -on-JAX adapter in this
    # worker set it in os.environ (the adapters set it before Keras loads), and the check's own
    # `import keras` comes first; under xdist such a test ran earlier in the same process.
    env = {**os.environ, "KERAS_BACKEND": "tensorflow"}
    proc = subprocess.run(
        [sys.executable, "-m", "tests.tf_input_checks"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=600, env=env,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(proc.stdout.splitlines()[-1])


@pytest.mark.parametrize("eval_steps", ["5", "3"])
def test_validation_batches_are_those_keras_cuts_from_the_arrays(seen, eval_steps):
    case = seen[eval_steps]
    assert case["ours"] == case["keras"]  # rows, sum of x, sum of y: the same rows exactly
    sizes = [rows for rows, _, _ in case["ours"]]
    assert sizes == ([16, 16, 16, 16, 11] if eval_steps == "5" else [16, 16, 16])


@pytest.mark.parametrize("eval_steps", ["5", "3"])
def test_fit_logs_the_same_val_loss_as_with_numpy_validation_data(seen, eval_steps):
    logs = seen[eval_steps]["val_loss"]
    assert logs["ours"] == pytest.approx(logs["numpy"], rel=1e-6)


def test_the_validation_pipeline_runs_without_the_autotuner(seen):
    assert seen["5"]["autotune"] is False
    # fit is given batches: a validation_batch_size beside a dataset would be refused by Keras
    assert seen["5"]["validation_keys"] == [
        "validation_data",
        "validation_freq",
        "validation_steps",
    ]


def test_an_epoch_of_full_batches_tells_the_traced_step_its_batch_size(seen):
    case = seen["training"]["full batches"]
    assert case["batch_dim"] == 16
    # the same rows as without drop_remainder: the shared order's first 48, 16 a batch
    assert case["rows"] == [case["order"][i : i + 16] for i in (0, 16, 32)]


def test_an_epoch_ending_on_a_partial_batch_keeps_it(seen):
    case = seen["training"]["partial last batch"]
    assert case["batch_dim"] is None  # one spec for 16 rows and 2: the dimension stays unknown
    assert [len(rows) for rows in case["rows"]] == [16, 16, 16, 2]
    assert [row for rows in case["rows"] for row in rows] == case["order"]
