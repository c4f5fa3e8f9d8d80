"""Result folders from several machines, collected and reported together: each machine keeps its
own hardware effect and scaling fit, and frameworks are compared only within one machine.

Machine A scales well and runs TensorFlow slower than torch; machine B barely scales and runs
TensorFlow faster. Pooling the machines would blur both facts; the tests check neither is.
"""

from __future__ import annotations

import pandas as pd
import pytest

from analysis.__main__ import main
from analysis.compute import pipeline
from analysis.load.table import runs_table
from analysis.render import report

from . import test_analysis_fakes as fakes

A, B = "Machine A x8", "Machine B x64"
CORES = (1, 2, 4)
# Epoch times (binary fractions): A halves its time per doubling, B gains a quarter at most.
TIMES = {
    A: {"torch": {1: 4.0, 2: 2.0, 4: 1.0}, "tensorflow": {1: 8.0, 2: 4.0, 4: 2.0}},
    B: {"torch": {1: 2.0, 2: 1.75, 4: 1.5}, "tensorflow": {1: 1.0, 2: 0.875, 4: 0.75}},
}


@pytest.fixture
def folders(tmp_path):
    out = []
    for machine, per_backend in TIMES.items():
        folder = tmp_path / machine.split()[1].lower()
        for backend, per_cores in per_backend.items():
            for cpus, t in per_cores.items():
                # Three epochs, one slightly off, so every fit has residuals to work with.
                epochs = [t, t * 1.03125, t * 0.96875]
                fakes.write(folder, f"{backend}{cpus}", fakes.record(backend, cpus, epochs,
                                                                     machine=machine))  # fmt: skip
        out.append(folder)
    return out


def test_collect_keeps_every_run_under_its_own_machine(folders, tmp_path, capsys):
    assert main(["collect", *map(str, folders), "--out", str(tmp_path / "table")]) == 0
    assert "collected 12 runs from 2 machine(s)" in capsys.readouterr().out
    table = pd.read_parquet(tmp_path / "table.parquet")
    assert table.groupby("machine").size().to_dict() == {A: 6, B: 6}


def test_the_hardware_effect_and_scaling_fit_stay_per_machine(folders):
    an = pipeline.analyze(runs_table(folders), pipeline.Options(inputs=folders))
    hw = an.hardware.set_index(["machine", "backend", "cpus"])
    assert hw.loc[(A, "torch", 4), "speedup"] == pytest.approx(4.0, rel=1e-3)
    assert hw.loc[(B, "torch", 4), "speedup"] == pytest.approx(2.0 / 1.5, rel=1e-3)
    fits = an.scaling.fits
    chosen = fits[fits["chosen"]].set_index(["machine", "backend"])
    assert len(chosen) == 4  # two machines x two frameworks, never pooled
    assert chosen.loc[(A, "torch"), "parallel_fraction"] > 0.95
    assert chosen.loc[(B, "torch"), "parallel_fraction"] < 0.5


def test_frameworks_are_compared_only_within_a_machine(folders, tmp_path):
    an = pipeline.analyze(runs_table(folders), pipeline.Options(inputs=folders))
    fe = an.framework[an.framework["headline"]]
    assert len(fe) == 6  # one torch/TF pair per machine and core count
    for _, row in fe.iterrows():
        assert row["reference_config"].endswith(f"@ {row['machine']}")
        assert row["other_config"].endswith(f"@ {row['machine']}")
    ratios = fe.groupby("machine")["ratio"].agg(["min", "max"])
    assert ratios.loc[A, "max"] < 1 < ratios.loc[B, "min"]  # torch faster on A, slower on B
    html = report.write(an, tmp_path / "report").read_text()
    assert A in html and B in html
