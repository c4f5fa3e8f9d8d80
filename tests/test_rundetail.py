"""Inside-run detail for the report: steady steps from steps.json, time to a target accuracy,
and the memory/CPU figures the worker records outside its timed steps."""

from __future__ import annotations

import json
import mmap
import os
import subprocess
import sys

import pandas as pd
import pytest

from analysis.compute import rundetail
from frameworks.timing import RunClock
from twinbench.paths import REPO_ROOT
from twinbench.worker import resources


def test_steady_steps_leave_out_the_warm_up_and_each_epochs_first_step():
    per_epoch = [[9_000_000, 1_000_000, 2_000_000], [8_000_000, 3_000_000]]
    assert rundetail.steady_steps_ms(per_epoch, warmup_steps=0) == [1.0, 2.0, 3.0]
    assert rundetail.steady_steps_ms(per_epoch, warmup_steps=2) == [2.0, 3.0]


def test_time_to_target_is_the_wall_clock_to_the_first_epoch_that_reaches_it():
    times, accuracy = [2.0, 1.5, 1.5], [0.80, 0.91, 0.95]
    assert rundetail.time_to_target(times, accuracy, 0.9) == 3.5
    assert rundetail.time_to_target(times, accuracy, 0.95) == 5.0
    assert rundetail.time_to_target(times, accuracy, 0.99) is None


def test_steps_are_read_only_from_a_well_formed_steps_file(tmp_path):
    result = tmp_path / "result.json"
    (tmp_path / "steps.json").write_text(json.dumps({"unit": "ns", "per_epoch": [[1, 2]]}))
    assert rundetail.read_steps(str(result), "steps.json") == [[1, 2]]
    (tmp_path / "bad.json").write_text(json.dumps({"unit": "s", "per_epoch": [[1, 2]]}))
    assert rundetail.read_steps(str(result), "bad.json") is None
    assert rundetail.read_steps(str(result), "missing.json") is None
    assert rundetail.read_steps(str(result), None) is None


def test_resources_count_the_cpu_time_of_the_epochs_alone():
    """Only the epochs' own spans count: work before the first epoch (a framework tracing its
    graph) once made a short run read 20 to 33 busy cores on a 2-core machine (issue 28)."""
    wall = iter([0, 1_000_000_000, 2_000_000_000, 3_000_000_000])  # two 1 s epochs, 1 s apart
    cpu = iter([5_000_000_000, 5_800_000_000, 9_000_000_000, 9_400_000_000])  # 0.8 s, 0.4 s
    clock = RunClock(now_ns=lambda: next(wall), cpu_ns=lambda: next(cpu))
    for _ in range(2):  # 3.2 s of CPU between the epochs, outside both
        clock.epoch_begin()
        clock.epoch_end()
    used = resources.usage(clock)
    assert used["cpu_time_training_s"] == pytest.approx(1.2)
    assert used["busy_cores_training"] == pytest.approx(0.6)
    assert used["cpu_time_s"] >= 0 and used["peak_rss_mib"] > 10  # this interpreter: > 10 MiB


def test_busy_cores_of_a_real_epoch_stay_within_the_cores_that_ran():
    # In a fresh interpreter with one BLAS thread, as a 1-core worker runs (its thread budget
    # in the environment): the process clock counts every thread, and OpenBLAS's pool spins
    # for about 0.1 s after it wakes. In the test's own process (a pytest-xdist worker) it read
    # 1.40 busy cores (2026-12-07, with the files' order changed: most likely an earlier test's
    # numpy call); right after a fresh numpy import, 1.19-1.23.
    code = (
        "from frameworks.timing import RunClock\n"
        "from twinbench.worker import resources\n"
        "clock = RunClock()\n"
        "clock.epoch_begin()\n"
        "sum(i * i for i in range(2_000_000))\n"  # one thread's CPU work
        "clock.epoch_end()\n"
        "print(resources.usage(clock)['busy_cores_training'])\n"
    )
    one = {"OPENBLAS_NUM_THREADS": "1", "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True, text=True, check=True, cwd=REPO_ROOT, env={**os.environ, **one},
    )  # fmt: skip
    # one thread cannot keep more than one core busy, however loaded the machine is
    assert 0 < float(out.stdout.strip().splitlines()[-1]) <= 1.05


def _touch_fresh_pages(mib: int) -> None:
    """Map anonymous memory, write one byte per page (each write a minor page fault), unmap it:
    what an allocator does with a large temporary, step after step."""
    pages = mib * 1024 * 1024 // mmap.PAGESIZE
    with mmap.mmap(-1, pages * mmap.PAGESIZE) as memory:
        for page in range(pages):
            memory[page * mmap.PAGESIZE] = 1


def test_the_kernel_time_and_page_faults_of_the_training_parts_alone_are_recorded():
    """Each epoch's training part touches 32 MiB of fresh pages, its validation 128 MiB: the
    record counts the first (torch's fastText step spent most of its time there, 2026-12-07).
    The bounds leave room for whatever else this process' threads fault meanwhile; counting the
    validation too would add four times the training parts' faults."""
    clock = RunClock()
    for _ in range(2):
        clock.epoch_begin()
        _touch_fresh_pages(32)
        clock.validation_begin()
        _touch_fresh_pages(128)
        clock.epoch_end()
    used = resources.usage(clock)
    faults, system = used["minor_faults_training_steps"], used["system_time_training_steps_s"]
    per_part = 32 * 1024 * 1024 // mmap.PAGESIZE
    assert 2 * per_part <= faults < 2 * per_part * 2, used
    assert system > 0, used


def test_the_report_shows_the_kernel_share_and_the_faults_of_a_step():
    run = pd.Series({"system_time_training_steps_s": 3.0, "cpu_time_training_steps_s": 6.0,
                     "minor_faults_training_steps": 1200, "steps_per_epoch": 40,
                     "epochs_timed": 3})  # fmt: skip
    assert rundetail.kernel_share(run) == 0.5
    assert rundetail.faults_per_step(run) == 10
    older = pd.Series({"cpu_time_training_steps_s": 6.0, "steps_per_epoch": 40})  # before 12-07
    assert rundetail.kernel_share(older) is None and rundetail.faults_per_step(older) is None


def test_no_finished_epoch_gives_no_busy_cores():
    assert resources.usage(RunClock())["busy_cores_training"] is None


def test_the_report_gives_each_runs_time_to_a_configured_target(tmp_path):
    import pandas as pd

    from analysis.__main__ import main

    from . import test_analysis_fakes as fakes

    # validation accuracy 0.45 then 0.55: the 0.5 target is reached at the end of epoch 2
    fakes.sweep(tmp_path / "s", {("torch", 1): [[1.0, 2.0]], ("tensorflow", 1): [[2.0, 4.0]]})
    assert (
        main([str(tmp_path / "s"), "--out", str(tmp_path / "out"), "--target-accuracy", "0.5"]) == 0
    )
    table = pd.read_csv(tmp_path / "out" / "report_files" / "tables" / "inside_runs.csv")
    assert dict(zip(table["config_label"], table["time_to_target_s"], strict=True)) == {
        "torch cpu1": 3.0,
        "tensorflow cpu1": 6.0,
    }
    assert "accuracy first reached 0.5" in (tmp_path / "out" / "report.html").read_text()


def test_a_batch_size_sweep_is_drawn_against_batch_size(tmp_path):
    import pandas as pd

    from analysis.__main__ import main

    from . import test_analysis_fakes as fakes

    sweep = tmp_path / "s"
    for batch, step in ((128, 0.5), (256, 0.75)):  # bigger batches: longer steps, more samples/s
        times = {("torch", 1): [[1.0, 2.0]], ("tensorflow", 1): [[2.0, 4.0]]}
        for path in fakes.sweep(sweep / f"b{batch}", times, steady_step=step):
            rec = json.loads(path.read_text())
            rec["batch_size"] = rec["config"]["model"]["batch_size"] = batch
            rec["timing"]["steady_samples_per_s"] = batch / step
            path.write_text(json.dumps(rec))
    assert main([str(sweep), "--out", str(tmp_path / "out")]) == 0
    files = tmp_path / "out" / "report_files"
    table = pd.read_csv(files / "tables" / "batch_sweep_mlp.csv")
    torch = table[table["config_label"] == "torch cpu1"]
    assert torch["batch_size"].tolist() == [128, 256]
    assert torch["samples_per_s"].tolist() == [256.0, 256 / 0.75]
    assert torch["step_ms"].tolist() == [500.0, 750.0]
    assert (files / "figures" / "batch_mlp.png").exists()


def test_a_history_with_epochs_between_validations_renders(tmp_path):
    """A model validating every k-th epoch (tl_mlp's `validate_every`) records null for the
    others: the report renders, time-to-target skips them, the final value is the last present."""
    import pandas as pd

    from analysis.__main__ import main

    from . import test_analysis_fakes as fakes

    times = {("torch", 1): [[1.0, 2.0, 3.0]], ("tensorflow", 1): [[2.0, 4.0, 6.0]]}
    for path in fakes.sweep(tmp_path / "s", times):
        rec = json.loads(path.read_text())
        rec["history"]["val_accuracy"] = [0.45, None, 0.55]
        rec["history"]["val_loss"] = [1.0, None, None]
        path.write_text(json.dumps(rec))
    out = tmp_path / "out"
    assert main([str(tmp_path / "s"), "--out", str(out), "--target-accuracy", "0.5"]) == 0
    table = pd.read_csv(out / "report_files" / "tables" / "inside_runs.csv")
    assert dict(zip(table["config_label"], table["time_to_target_s"], strict=True)) == {
        "torch cpu1": 6.0,
        "tensorflow cpu1": 12.0,
    }
    runs = pd.read_csv(out / "report_files" / "tables" / "runs.csv")
    assert set(runs["final_val_accuracy"]) == {0.55} and set(runs["final_val_loss"]) == {1.0}


def test_runs_that_never_validated_draw_their_curves_without_a_warning():
    """Resident workers' records hold no validation: the curves' empty legend printed
    matplotlib's UserWarning on the first screen of the sweep that reported them."""
    import warnings

    from analysis.render import runcharts

    rows = pd.DataFrame([{"epoch_times_s": [1.0], "val_accuracy": [None], "val_loss": [None],
                          "config_label": "torch cpu1"}])  # fmt: skip
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        fig = runcharts.wallclock_curves(rows, "charlstm", None)
    texts = [t.get_text() for ax in fig.axes for t in ax.texts]
    assert texts == ["no validation recorded"] * 2


def test_start_up_phases_add_up_to_the_total_with_the_rest_as_other():
    """The start-up chart stacks the recorded phases and "other", the rest of total_s; a record
    written before train_setup_s existed shows its train set-up inside "other"."""
    import pandas as pd

    base = {"status": "ok", "source": "twinbench", "path": "/nowhere/result.json",
            "workload": "mlp", "model": "mlp", "config_label": "torch cpus=1",
            "backend": "torch", "startup_process_start_s": 0.2,
            "startup_framework_import_s": 1.0, "startup_data_s": 0.1, "startup_build_s": 0.05,
            "startup_first_step_s": 0.05, "startup_total_s": 2.4}  # fmt: skip
    runs = pd.DataFrame([{**base, "startup_train_setup_s": 0.9}, base])
    new, old = rundetail.details(runs).to_dict("records")
    assert new["startup_other_s"] == pytest.approx(0.1)
    assert pd.isna(old["startup_train_setup_s"]) and old["startup_other_s"] == pytest.approx(1.0)
    phases = [f"startup_{p}_s" for p in rundetail.STARTUP_PHASES]
    assert sum(new[c] for c in phases) == pytest.approx(2.4)  # the record's total_s
