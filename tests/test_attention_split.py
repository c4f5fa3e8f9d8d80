"""The fused/explicit attention split (analysis/compute/attention_split.py and its report
section): from hand-made records, the ratio explicit / fused, the path and kernel each side
reports having run (never the setting it asked for), and the one-line command where the inputs
hold one setting only."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

import pytest

from analysis.compute import attention_split
from analysis.load.table import runs_table
from analysis.render.page import Page
from analysis.render.sections import attention

from . import test_analysis_fakes as fakes


def run(
    root: Path,
    backend: str,
    asked: str,
    steady: float,
    repeat: int,
    *,
    ran: dict[str, Any] | None = None,
    model: str = "imdb_transformer",
    cpus: int = 1,
) -> None:
    """One ok record of `model` with arch.attention=`asked`, its steady step, and the attention
    block a worker reports (None: a record that does not say what ran)."""
    rec = fakes.record(
        backend, cpus, [1.0], model=model, repeat=repeat, repeats=3, steady_step=steady,
        run_key=f"{backend}-{model}-{asked}-{cpus}",
    )  # fmt: skip
    rec["config"]["model"]["arch"] = {"attention": asked}
    if ran is not None:
        rec["attention"] = ran
    fakes.write(root, f"{model}_{backend}_{asked}_cpu{cpus}/repeat-{repeat}", rec)


FUSED_TORCH = {"path": "fused", "kernel": "aten::_scaled_dot_product_flash_attention_for_cpu"}
EXPLICIT = {"path": "explicit", "kernel": "matmul-softmax-matmul"}


@pytest.fixture
def both(tmp_path):
    """torch: fused steps of 10 ms, explicit of 15 ms (three repeats each); keras_jax asked
    for fused but reports the explicit path on both sides (as Keras does under dropout)."""
    for i, jitter in enumerate((0.0, 0.5e-3, -0.5e-3)):
        run(tmp_path, "torch", "fused", 10e-3 + jitter, i, ran=FUSED_TORCH)
        run(tmp_path, "torch", "explicit", 15e-3 + jitter, i, ran=EXPLICIT)
        run(tmp_path, "keras_jax", "fused", 20e-3 + jitter, i, ran=EXPLICIT)
        run(tmp_path, "keras_jax", "explicit", 20e-3 + jitter, i, ran=EXPLICIT)
    return runs_table([tmp_path])


def test_the_ratio_is_explicit_over_fused_with_an_interval_around_it(both):
    t = attention_split.split(both).set_index("backend")
    torch = t.loc["torch"]
    assert torch["fused_step_s"] == pytest.approx(10e-3)
    assert torch["explicit_step_s"] == pytest.approx(15e-3)
    assert torch["ratio"] == pytest.approx(1.5)
    assert torch["ratio_low"] <= 1.5 <= torch["ratio_high"] and torch["ratio_low"] > 1
    assert torch["fused_n"] == torch["explicit_n"] == 3
    assert torch["fused_low_s"] <= 10e-3 <= torch["fused_high_s"]
    assert t.loc["keras_jax", "ratio"] == pytest.approx(1.0)


def test_each_side_shows_the_kernel_that_ran_not_the_setting_asked(both):
    t = attention_split.split(both).set_index("backend")
    assert t.loc["torch", "fused_ran"] == f"fused: {FUSED_TORCH['kernel']}"
    # keras_jax asked for fused; its records say the explicit path ran, and so does the table.
    assert t.loc["keras_jax", "fused_ran"] == "explicit: matmul-softmax-matmul"
    assert "fused" not in t.loc["keras_jax", "fused_ran"]
    # One path on both sides: flagged, so its ratio is not read as a kernel effect.
    assert t.loc["keras_jax", "same_ran"] and not t.loc["torch", "same_ran"]
    assert "[the same path ran on both sides]" in " ".join(attention_split.lines(both))


def test_a_record_that_does_not_say_what_ran_reads_not_recorded(tmp_path):
    for i in range(2):
        run(tmp_path, "torch", "fused", 10e-3, i)
        run(tmp_path, "torch", "explicit", 12e-3, i)
    t = attention_split.split(runs_table([tmp_path]))
    assert t.loc[0, "fused_ran"] == t.loc[0, "explicit_ran"] == attention_split.NOT_RECORDED


def test_one_run_a_side_gives_the_ratio_without_an_interval(tmp_path):
    run(tmp_path, "torch", "fused", 8e-3, 0, ran=FUSED_TORCH)
    run(tmp_path, "torch", "explicit", 12e-3, 0, ran=EXPLICIT)
    t = attention_split.split(runs_table([tmp_path]))
    assert t.loc[0, "ratio"] == pytest.approx(1.5)
    assert math.isnan(t.loc[0, "ratio_low"]) and math.isnan(t.loc[0, "ratio_high"])


def test_interleaved_runs_give_the_median_of_the_paired_ratios(tmp_path):
    # Pair k ran both settings back to back: ratios 2.0, 1.5, 1.25 -> median 1.5, whatever
    # the medians of each side (10 ms and 8 ms: 0.8) would say.
    pairs = [(4e-3, 8e-3), (10e-3, 15e-3), (16e-3, 20e-3)]
    for i, (fused, explicit) in enumerate(pairs):
        for asked, steady in (("fused", fused), ("explicit", explicit)):
            run(tmp_path, "torch", asked, steady, i, ran=EXPLICIT)
            path = tmp_path / f"imdb_transformer_torch_{asked}_cpu1/repeat-{i}/result.json"
            rec = json.loads(path.read_text())
            rec["pair_id"] = f"round-{i}"
            fakes.write(tmp_path, f"imdb_transformer_torch_{asked}_cpu1/repeat-{i}", rec)
    t = attention_split.split(runs_table([tmp_path]))
    assert t.loc[0, "ratio_pairs"] == 3
    assert t.loc[0, "ratio"] == pytest.approx(1.5)


def test_one_setting_only_gives_the_command_that_adds_the_other(tmp_path):
    for backend in ("torch", "keras_jax"):
        run(tmp_path, backend, "fused", 10e-3, 0, model="gpt", ran=FUSED_TORCH)
    runs = runs_table([tmp_path])
    assert attention_split.split(runs).empty
    (hint,) = attention_split.missing(runs)
    assert hint.endswith(
        "python run.py -m backend=torch,keras_jax model=gpt model.arch.attention=explicit cpus=1"
    ) or hint.endswith(
        "python run.py -m backend=keras_jax,torch model=gpt model.arch.attention=explicit cpus=1"
    )
    assert "\n" not in hint
    assert any(hint in line for line in attention_split.lines(runs))


def _page(out: Path) -> Page:
    page = Page(out)
    (page.files / "tables").mkdir(parents=True)
    return page


def test_the_section_renders_the_table_with_what_ran(both, tmp_path):
    page = _page(tmp_path / "out")
    attention.write(page, type("An", (), {"runs": both})())
    html = "".join(page.parts)
    assert f'id="{attention.ID}"' in html and "explicit / fused" in html
    assert "matmul-softmax-matmul" in html and "python run.py" not in html


def test_the_section_with_one_setting_shows_the_command_and_no_table(tmp_path):
    run(tmp_path, "torch", "explicit", 10e-3, 0, model="gpt", ran=EXPLICIT)
    page = _page(tmp_path / "out")
    attention.write(page, type("An", (), {"runs": runs_table([tmp_path])})())
    html = "".join(page.parts)
    assert f'id="{attention.ID}"' in html and "<table" not in html
    assert "python run.py -m backend=torch model=gpt model.arch.attention=fused cpus=1" in html


def test_workloads_without_an_attention_setting_leave_the_section_out(tmp_path):
    fakes.sweep(tmp_path, {("torch", 1): [[1.0, 1.0]]})
    runs = runs_table([tmp_path])
    assert attention_split.split(runs).empty and attention_split.missing(runs) == []
    page = _page(tmp_path / "out")
    attention.write(page, type("An", (), {"runs": runs})())
    assert page.parts == []
