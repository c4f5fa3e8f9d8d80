"""The first screen's hardware effect over this machine's deciding sweeps
(twinbench/cli/machine_hardware.py): the report's sweeps-as-units speed-up of the sides this
sweep ran, from the deciding sweeps beside it on the same machine."""

from __future__ import annotations

import os
from pathlib import Path

from twinbench.cli import machine_hardware
from twinbench.launch import screen

from . import test_analysis_fakes as fakes


def deciding_sweep(folder: Path, speedups: dict[str, float], machine: str = fakes.MACHINE) -> Path:
    """A finished deciding sweep: four rounds of each backend at 1 and 2 cores, every round's
    2-core step `speedups[backend]` times shorter than its 1-core one, the host slowing round by
    round (so only rounds paired within the sweep give the speed-up exactly)."""
    folder.mkdir(parents=True)
    (folder / "multirun.yaml").write_text("hydra: {}\n")
    (folder / "decisions.json").write_text("{}\n")
    for backend, speedup in speedups.items():
        for cpus in (1, 2):
            for i in range(4):
                step = 0.01 * (1 + 0.2 * i) / (speedup if cpus == 2 else 1.0)
                rec = fakes.record(backend, cpus, [1.0, 1.0], repeat=i, repeats=4,
                                   machine=machine, steady_step=step)  # fmt: skip
                rec["pair_id"] = f"{backend}{cpus}-r{i}"
                fakes.write(folder, f"{backend}_cpu{cpus}/repeat-{i}", rec)
    return folder


def test_the_machine_line_takes_each_earlier_deciding_sweep_as_one_value(tmp_path):
    root = tmp_path / "sweeps"
    deciding_sweep(root / "a", {"torch": 1.2, "tensorflow": 1.1})
    deciding_sweep(root / "b", {"torch": 1.5, "tensorflow": 1.1})
    for name in ("other-1", "other-2"):  # another machine's sweeps beside them are not its
        deciding_sweep(root / name, {"torch": 3.0, "tensorflow": 3.0}, "Other CPU x8")
    not_deciding = deciding_sweep(root / "plain", {"torch": 3.0, "tensorflow": 3.0})
    (not_deciding / "decisions.json").unlink()  # a plain sweep beside them is not read
    here = deciding_sweep(root / "c", {"torch": 1.2, "tensorflow": 1.1})
    [line] = machine_hardware.machine_line(here, 2)
    assert line.startswith("  over 3 sweeps on this machine (1 core to all (2), each sweep one")
    torch = (1.2 * 1.5 * 1.2) ** (1 / 3)  # each sweep's exact speed-up, one value each
    assert f"torch {torch:.2f}x [" in line and "tensorflow 1.10x [1.10, 1.10]" in line
    assert line.index("torch") < line.index("tensorflow")  # the reference first, as above it


def test_without_an_earlier_sweep_of_the_same_sides_there_is_no_machine_line(tmp_path):
    alone = deciding_sweep(tmp_path / "sweeps" / "only", {"torch": 1.2, "tensorflow": 1.1})
    assert machine_hardware.machine_line(alone, 2) == []
    deciding_sweep(tmp_path / "sweeps" / "keras", {"keras_jax": 1.3})  # other sides only
    assert machine_hardware.machine_line(alone, 2) == []


def test_history_that_cannot_be_read_says_so_in_one_line(tmp_path, monkeypatch):
    here = deciding_sweep(tmp_path / "sweeps" / "c", {"torch": 1.2, "tensorflow": 1.1})

    def broken(folders):
        raise OSError("disk gone")

    monkeypatch.setattr(machine_hardware, "_over_sweeps", broken)
    assert machine_hardware.machine_line(here, 2) == [
        "  over sweeps on this machine: not available (OSError: disk gone)"
    ]


def test_the_first_screen_puts_the_machine_line_under_this_sweep_s_hardware_lines():
    runs = [
        {"status": "ok", "backend": "torch", "cpus": c, "repeat": k,
         "timing": {"steady_step_s": {"median": t}}}
        for c, t in ((1, 0.012), (2, 0.010))
        for k in (0, 1)
    ]  # fmt: skip
    machine = ["  over 3 sweeps on this machine: torch 1.20x [1.10, 1.30]"]
    lines = screen.end_lines(None, runs, {}, 2, [], machine)
    assert lines[lines.index(machine[0]) - 1].strip().startswith("torch  1.20x")
    assert screen.end_lines(None, [], {}, 2, [], machine) == []  # no hardware: no machine line


def test_only_the_most_recent_deciding_sweeps_are_read(tmp_path):
    root = tmp_path / "sweeps"
    for age, name in enumerate(("new", "mid", "old")):
        sweep = deciding_sweep(root / name, {"torch": 1.2})
        os.utime(sweep / "decisions.json", (1e9 - age, 1e9 - age))
    here = deciding_sweep(root / "here", {"torch": 1.2})
    read = machine_hardware.deciding_sweeps(here, limit=3)
    assert read == [here.resolve(), (root / "new").resolve(), (root / "mid").resolve()]
