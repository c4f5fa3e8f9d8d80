"""docs/guides/adding-a-workload.md, followed to the letter in a temporary copy of the repository:
its file blocks written where they say, its commands run there. The toy must train on every
registered backend and pass parity, so the page cannot drift from the code it describes; and a
mistake planted in a block must be caught, so the following can fail.

The toy lives only on the page: the repository itself never gains it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from omegaconf import OmegaConf

from frameworks import registry
from models import catalog
from tests import guide_pages
from tests.page_harness import (
    PAGE,
    QUIET_MEASURE,
    contract_failures,
    finish,
    page_command,
    repository_copy,
    start,
    workload_of,
    write_blocks,
)

TEXT = PAGE.read_text()
BLOCKS = guide_pages.file_blocks(TEXT)
NAME = workload_of(BLOCKS)
MODULE, CONF = f"models/{NAME}.py", f"conf/model/{NAME}.yaml"
TRAIN = "python run.py -m"
CERTIFY = "python -m twinbench.parity"
TIMEOUT_S = 1500  # a loaded machine; the work itself is a few minutes of CPU


def follow(tmp_path: Path, blocks: dict[str, str]) -> Path:
    copy = repository_copy(tmp_path / "repo")
    write_blocks(copy, blocks)
    return copy


def planted(path: str, old: str, new: str) -> dict[str, str]:
    """The page's blocks with one mistake in one of them."""
    assert old in BLOCKS[path], f"{path} no longer holds {old!r}: update the planted mistake"
    return {**BLOCKS, path: BLOCKS[path].replace(old, new, 1)}


def test_the_page_adds_one_workload_in_two_files_that_the_repository_lacks():
    assert set(BLOCKS) == {MODULE, CONF}
    assert NAME not in catalog.names()  # the toy is the page's, never the repository's


def test_the_blocks_meet_the_model_module_contract(tmp_path):
    assert contract_failures(follow(tmp_path, BLOCKS), NAME) == []


def test_a_model_block_without_LAYERS_fails_the_contract_check(tmp_path):
    broken = planted(MODULE, 'LAYERS = {"hidden": "dense", "predictions": "dense"}\n', "")
    assert contract_failures(follow(tmp_path, broken), NAME) == [f"{MODULE} has no LAYERS"]


def test_an_arch_key_the_halves_do_not_take_fails_the_contract_check(tmp_path):
    broken = planted(CONF, "  hidden: 32\n", "  units: 32\n")
    failures = contract_failures(follow(tmp_path, broken), NAME)
    who = [f.split(" ")[0] for f in failures]
    assert who == ["torch_model's", "keras_model's", "flop_products"]
    assert all("arch keys" in f for f in failures)


# Over 60 s on the Zen 3 (about 62 s): the guide's commands as a reader runs them, on every
# backend, training and certifying side by side; one walk of the page.
@pytest.mark.slow
def test_following_the_page_trains_the_toy_on_every_backend_and_certifies_it(tmp_path):
    copy = follow(tmp_path, BLOCKS)
    assert contract_failures(copy, NAME) == []
    listed = subprocess.run(
        [sys.executable, "run.py", "--help"], cwd=copy, capture_output=True, text=True, timeout=300
    )
    assert f" {NAME}" in listed.stdout, listed.stdout  # the catalog found the yaml
    sweep = tmp_path / "sweep"
    train = [
        *page_command(TEXT, TRAIN),
        *QUIET_MEASURE,
        f"hydra.sweep.dir={sweep}",
    ]
    # Training and parity are independent: they run side by side to halve the wall time.
    training = start(copy, train, tmp_path / "train.log")
    certifying = start(copy, page_command(TEXT, CERTIFY), tmp_path / "parity.log")
    trained, train_log = finish(training, tmp_path / "train.log", TIMEOUT_S)
    certified, parity_log = finish(certifying, tmp_path / "parity.log", TIMEOUT_S)

    records = [json.loads(p.read_text()) for p in sweep.rglob("result.json")]
    by_backend = {r["backend"]: r for r in records}
    assert sorted(by_backend) == sorted(registry.names()), train_log  # the page names them all
    expected = OmegaConf.load(copy / CONF)["expected_params"]
    for backend, record in by_backend.items():
        assert record["status"] == "ok", (backend, record.get("error"))
        assert record["model"] == NAME and record["params"] == expected, backend
    assert trained == 0, train_log

    assert certified == 0, parity_log
    summary = json.loads((copy / "results" / "parity" / f"{NAME}.json").read_text())
    assert summary["passed"], summary["failures"]
    assert summary["backends"] == sorted(set(registry.names()) - {registry.REFERENCE})
    assert set(summary["params"].values()) == {expected}


def _native_and_keras_on_its_runtime() -> tuple[str, str]:
    """A backend with its own model API and the Keras backend on the same runtime: the two
    halves of a model meet there with one framework to load, the cheapest parity pair."""
    specs = [registry.spec(n) for n in registry.names()]
    native = next(s for s in specs if s.api != "keras")
    keras = next(s for s in specs if s.api == "keras" and s.runtime == native.runtime)
    return native.name, keras.name


@pytest.mark.slow
def test_an_activation_changed_on_one_half_only_fails_parity(tmp_path):
    broken = planted(
        MODULE,
        'layers.Dense(hidden, activation="relu", name="hidden")',
        'layers.Dense(hidden, activation="tanh", name="hidden")',
    )
    copy = follow(tmp_path, broken)
    assert contract_failures(copy, NAME) == []  # the contract cannot see what a half computes
    native, keras = _native_and_keras_on_its_runtime()
    command = [*page_command(TEXT, CERTIFY), "--reference", native, "--backends", keras]
    log = tmp_path / "parity.log"
    returncode, output = finish(start(copy, command, log), log, TIMEOUT_S)
    assert returncode == 1, output
    assert "FAIL" in output and "forward outputs differ" in output, output
