"""The report's release history (analysis/compute/release_history.py) and the certificates' tie
to a stack (twinbench/parity/certificates.py): cheap, from made-up runs and folders."""

from __future__ import annotations

import pandas as pd

from analysis.compute import release_history
from analysis.render.contents import SECTIONS
from frameworks.certified import differences, fingerprint
from twinbench.parity import certificates


def _runs(stack: str, version: str, steps: list[float], kernels: str | None) -> list[dict]:
    return [
        {
            "workload": "mlp",
            "backend": "keras_torch",
            "cpus": 1,
            "precision": "float32",
            "status": "ok",
            "stack": stack,
            "framework_version": version,
            "stack_pins": None if stack == "pinned" else f"keras=={version}",
            "stack_versions": f"keras=={version}, torch==2.13.0+cpu",
            "kernels_summary": kernels,
            "steady_step_s": s,
        }
        for s in steps
    ]


def test_releases_in_order_with_a_verdict_against_the_one_before():
    runs = pd.DataFrame(
        # pinned is the newest release here, named last by its version, not its name
        _runs("pinned", "3.15.1", [0.0130, 0.0131, 0.0129, 0.0130], "onednn avx512")
        + _runs("a-3.13", "3.13.0", [0.0100, 0.0101, 0.0100, 0.0099], "mkl avx2")
        + _runs("x-3.12", "3.12.0", [0.0100, 0.0100, 0.0101, 0.0099], "mkl avx2")
        # a series on one stack only has no history
        + [r | {"backend": "torch"} for r in _runs("pinned", "2.13.0", [0.01, 0.01], None)]
    )
    table = release_history.history(runs)
    assert list(table["stack"]) == ["x-3.12", "a-3.13", "pinned"]  # by release, not by name
    # named by what moved between the stacks (keras), not by what they share (torch)
    assert list(table["release"]) == ["keras 3.12.0", "keras 3.13.0", "keras 3.15.1"]
    assert list(table["versus"].fillna("-")) == ["-", "x-3.12", "a-3.13"]
    assert list(table["verdict"].fillna("-")) == ["-", "equivalent", "slower"]
    assert table["ratio"].iloc[2] > 1.25
    assert list(table["kernels_changed"].fillna("-")) == ["-", False, True]


def test_one_run_a_side_decides_nothing():
    runs = pd.DataFrame(_runs("a", "3.12.0", [0.01], None) + _runs("b", "3.13.0", [0.02], None))
    assert list(release_history.history(runs)["verdict"].fillna("-")) == ["-", "undecided"]


def test_the_report_places_the_release_history():
    assert "release-history" in [s.id for s in SECTIONS]


def test_a_stacks_certificates_live_apart_and_name_the_stack(tmp_path):
    stack = {"name": "keras-3.12", "pins": ["keras==3.12.0"]}
    assert certificates.directory_for(None, tmp_path) == tmp_path
    assert certificates.directory_for({"name": "pinned", "pins": []}, tmp_path) == tmp_path
    assert certificates.directory_for(stack, tmp_path) == tmp_path / "stacks" / "keras-3.12"
    found = certificates.status("mlp", tmp_path / "stacks" / "keras-3.12", "torch", stack)
    assert found["status"] == "not checked"
    assert found["stack"] == "keras-3.12"
    assert found["command"] == "python -m twinbench.parity mlp --backends torch --stack keras-3.12"
    assert found["fingerprint"]["stack_pins"] == {"keras": "3.12.0"}


def test_a_certificate_of_other_pins_is_stale():
    then = fingerprint("mlp", {"keras": "3.12.0"})
    assert differences(then, fingerprint("mlp", {"keras": "3.12.0"})) == []
    assert differences(then, fingerprint("mlp", {"keras": "3.13.0"})) == [
        "stack pins {'keras': '3.12.0'} -> {'keras': '3.13.0'}"
    ]
    assert differences(fingerprint("mlp"), then) == ["stack pins none -> {'keras': '3.12.0'}"]
