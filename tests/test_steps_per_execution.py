"""Keras' steps_per_execution must not move batches across epochs: TensorFlow has to train on
torch's batches, epoch by epoch, whatever the epoch's step count."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np

from twinbench.paths import REPO_ROOT


def test_ten_steps_per_execution_train_on_the_same_batches_as_one_when_13_do_not_divide():
    proc = subprocess.run(
        [sys.executable, "-m", "tests.spe_checks"],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    one, ten = (json.loads(proc.stdout.splitlines()[-1])[k] for k in ("1", "10"))
    assert one["ticks_per_epoch"] == [13, 13, 13]
    assert ten["ticks_per_epoch"] == [2, 2, 2]  # 10 steps, then the epoch's last 3
    # Same batches in the same epochs, so the same losses per epoch and the same final weights
    # (a batch moved across an epoch boundary changes both).
    np.testing.assert_allclose(ten["loss"], one["loss"], rtol=1e-6)
    for name, weights in one["weights"].items():
        np.testing.assert_allclose(ten["weights"][name], weights, rtol=0, atol=1e-6)
