"""The report's API-vs-runtime split (analysis/compute/api_runtime.py), from hand-made records: no
training. The four backends carry their model API and runtime as the worker writes them."""

from __future__ import annotations

from pathlib import Path

import pytest

from analysis.compute import api_runtime, pipeline
from analysis.load.table import runs_table
from analysis.render import report
from analysis.render.page import Page

from . import test_analysis_fakes as fakes

# name: (api, runtime, label, seconds per epoch)
FOUR = {
    "torch": ("torch", "torch", "PyTorch", 1.0),
    "keras_torch": ("keras", "torch", "Keras on torch", 1.5),
    "tensorflow": ("keras", "tensorflow", "Keras on TensorFlow", 3.0),
    "keras_jax": ("keras", "jax", "Keras on JAX", 0.75),
}


def _records(root: Path, names: list[str], cpus: tuple[int, ...] = (1, 2)) -> Path:
    for name in names:
        api, runtime, label, seconds = FOUR[name]
        for c in cpus:
            for repeat, wobble in enumerate((1.0, 1.0625)):
                rec = fakes.record(name, c, [seconds * wobble / c], repeat=repeat, repeats=2)
                rec |= {"backend_api": api, "backend_runtime": runtime, "backend_label": label}
                fakes.write(root, f"mlp_{name}_cpu{c}/repeat-{repeat}", rec)
    return root


def _analysis(root: Path) -> pipeline.Analysis:
    return pipeline.analyze(runs_table([root]), pipeline.Options(inputs=[root]))


def _effect(split, kind: str, backend: str, cpus: int = 1):
    rows = split[(split["kind"] == kind) & (split["backend"] == backend) & (split["cpus"] == cpus)]
    assert len(rows) == 1, (kind, backend, split)
    return rows.iloc[0]


def test_same_runtime_gives_the_api_effect_and_same_api_the_runtime_effect(tmp_path):
    an = _analysis(_records(tmp_path, list(FOUR)))
    split = api_runtime.split(an.configs, an.reference)
    # API: Keras on torch / native torch, both on torch's runtime.
    api = _effect(split, "api", "keras_torch")
    assert api["base"] == "torch" and api["shared"] == "torch"
    assert api["ratio"] == pytest.approx(1.5)
    # Runtime: Keras on each runtime / Keras on the reference's runtime (torch): they chain.
    tf = _effect(split, "runtime", "tensorflow")
    jax = _effect(split, "runtime", "keras_jax")
    assert tf["base"] == jax["base"] == "keras_torch" and tf["shared"] == "keras"
    assert tf["ratio"] == pytest.approx(2.0) and jax["ratio"] == pytest.approx(0.5)
    assert api["ratio"] * tf["ratio"] == pytest.approx(3.0)  # the plain tensorflow / torch gap
    # Two repeats a side: an interval around each ratio.
    assert tf["ratio_ci_low"] <= tf["ratio"] <= tf["ratio_ci_high"]
    # torch vs TensorFlow differ in both: not one effect; no pair between two non-base runtimes.
    assert len(split[split["cpus"] == 1]) == 3


def test_the_report_shows_the_four_way_table_and_the_split_chart(tmp_path):
    an = _analysis(_records(tmp_path / "runs", list(FOUR)))
    page = Page(tmp_path / "out")
    for sub in ("figures", "tables"):
        (page.files / sub).mkdir(parents=True)
    api_runtime.section(page, an)
    html = "".join(page.parts)
    assert 'id="api-runtime"' in html
    for _, _, label, _ in FOUR.values():
        assert label in html  # every backend a column of the four-way table
    assert "<img" in html and [p.name for p in page.figures] == ["api_runtime_mlp.png"]
    assert "API effect" in html and "runtime effect" in html


def test_the_full_report_links_the_section_and_keeps_the_framework_view(tmp_path):
    an = _analysis(_records(tmp_path / "runs", list(FOUR), cpus=(1,)))
    html = report.write(an, tmp_path / "out").read_text()
    assert 'href="#api-runtime"' in html and 'id="api-runtime"' in html
    assert 'id="framework"' in html  # the reference-vs-each-other view stays


def test_no_backend_pair_sharing_an_api_or_a_runtime_leaves_the_section_out(tmp_path):
    an = _analysis(_records(tmp_path / "runs", ["torch", "tensorflow"], cpus=(1,)))
    assert api_runtime.split(an.configs, an.reference).empty
    html = report.write(an, tmp_path / "out").read_text()
    assert "api-runtime" not in html
    assert 'id="framework"' in html


def test_the_framework_table_compares_the_reference_with_every_other_backend(tmp_path):
    an = _analysis(_records(tmp_path, list(FOUR), cpus=(1,)))
    fe = an.framework[an.framework["headline"]]
    assert set(fe["reference"]) == {"torch"}
    assert sorted(fe["other"]) == ["keras_jax", "keras_torch", "tensorflow"]
    ratio = dict(zip(fe["other"], fe["ratio"], strict=True))
    assert ratio["tensorflow"] == pytest.approx(1 / 3)
    assert ratio["keras_jax"] == pytest.approx(4 / 3)
    # --reference chooses another backend; one that did not run is refused with what to do.
    other = pipeline.analyze(
        runs_table([tmp_path]), pipeline.Options(inputs=[tmp_path], reference="tensorflow")
    )
    assert set(other.framework["reference"]) == {"tensorflow"}
    with pytest.raises(pipeline.AnalysisError, match="--reference mxnet: no runs"):
        pipeline.analyze(runs_table([tmp_path]), pipeline.Options(reference="mxnet"))
