"""The real loop's fingerprint (frameworks/loop_print.py): every backend's training loop records
the same batch order, first batch, training and validation samples and partial-batch weighting
for the same plan, and the sweep's check (analysis/compute/loops.py) flags a backend that fed
another order or dropped the last partial validation batch: one-line mutations of torch's side
(tests/loop_print_checks.py). One tiny loop per process, all started at once."""

from __future__ import annotations

import json
import subprocess
import sys

import pandas as pd
import pytest

from analysis.compute import loops
from analysis.load.records import SOURCE
from frameworks import registry
from frameworks.loop_print import PER_SAMPLE, LoopPrint
from tests.loop_print_checks import BATCH, EPOCHS, N_TEST, N_TRAIN
from twinbench.paths import REPO_ROOT

MUTATED = "torch"  # the side the mutations change
MUTATIONS = ("other-order", "drop-partial-validation")


@pytest.fixture(scope="module")
def fingerprints() -> dict[tuple[str, str | None], list[dict]]:
    """(backend, mutation or None) -> its loop fingerprint."""
    jobs = [(b, None) for b in registry.names()] + [(MUTATED, m) for m in MUTATIONS]
    procs = {
        job: subprocess.Popen(
            [sys.executable, "-m", "tests.loop_print_checks", job[0], *filter(None, [job[1]])],
            cwd=REPO_ROOT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for job in jobs
    }
    found = {}
    for job, proc in procs.items():
        out, err = proc.communicate(timeout=600)
        assert proc.returncode == 0, err[-2000:]
        found[job] = json.loads(out.strip().splitlines()[-1])
    return found


def _runs(loops_by_backend: dict[str, list[dict]]) -> pd.DataFrame:
    """Records as the analysis reads them: one successful run per backend, same config."""
    return pd.DataFrame(
        [
            {"source": SOURCE, "status": "ok", "model": "mlp", "seed": 0, "data_source":
             "synthetic", "batch_size": BATCH, "workload_epochs": EPOCHS, "max_steps": None,
             "backend": b, "loop": json.dumps(v)}
            for b, v in loops_by_backend.items()
        ]
    )  # fmt: skip


def test_every_backend_records_what_it_fed_and_scored(fingerprints):
    reference = fingerprints["torch", None]
    assert len(reference) == EPOCHS
    for epoch in reference:  # a partial last batch trained and a partial one scored
        assert (epoch["train_samples"], epoch["val_samples"]) == (N_TRAIN, N_TEST)
        assert epoch["partial_batch_weighting"] == PER_SAMPLE
    assert reference[0]["batch_order_sha256"] != reference[1]["batch_order_sha256"]
    for backend in registry.names():
        assert loops.first_difference(reference, fingerprints[backend, None]) is None, backend
    table = loops.loop_agreement(_runs({b: fingerprints[b, None] for b in registry.names()}))
    assert table["same"].tolist() == [True] and table["runs"].tolist() == [len(registry.names())]


@pytest.mark.parametrize(
    ("mutation", "field"),
    [("other-order", "batch_order_sha256"), ("drop-partial-validation", "val_samples")],
)
def test_the_sweep_check_flags_a_loop_that_differs(fingerprints, mutation, field):
    reference = "tensorflow"
    runs = _runs(
        {reference: fingerprints[reference, None], MUTATED: fingerprints[MUTATED, mutation]}
    )
    (row,) = loops.loop_agreement(runs).to_dict("records")
    assert not row["same"]
    # sorted by name, tensorflow's run is the one the others are compared with
    assert row["differences"].startswith(f"{MUTATED}: epoch 1: {field} ")


def test_a_batch_asked_for_twice_counts_once():
    """Keras' loaders may peek at a batch; the fingerprint keys batches by their step."""
    once, twice = LoopPrint(), LoopPrint()
    for fed in (once, twice):
        fed.batch(0, 0, [3, 1], ([1.0], [0]))
        fed.batch(0, 1, [0, 2])
    twice.batch(0, 0, [3, 1], ([1.0], [0]))
    assert once.epochs() == twice.epochs() and once.epochs()[0]["train_samples"] == 4
    with pytest.raises(ValueError, match="without its data"):
        LoopPrint().batch(0, 0, [1])
