"""The section on the equivalence certificates, with each model's training curves per backend."""

from __future__ import annotations

import pandas as pd

from analysis.compute import loops, seed_curves
from analysis.compute.pipeline import Analysis
from analysis.render import charts
from analysis.render.htmlkit import Col, esc, table_html
from analysis.render.page import Page, Section

ID = "parity"


PARITY_COLS = [
    Col("model", "model"),
    Col("certificate_status", "certificate"),
    Col("status_in_records", "status in records"),
    Col("checked", "checked"),
    Col("params", "parameters"),
    Col("forward_max_abs_diff", "forward max |diff|", "g"),
    Col("training_weight_diff", "training weight diff", "g"),
    Col("training_weight_bound", "bound", "g"),
    Col("training_loss_rel_diff", "training loss rel. diff", "g"),
    Col("lr_schedule_rel_diff", "lr schedule rel. diff", "g"),
    Col("changed_since", "changed since certified"),
    Col("certificate_problem", "why invalid"),
    Col("failures", "failures"),
    Col("certificate", "file"),
]


def write(page: Page, an: Analysis) -> None:
    if an.parity.empty:
        page.not_measured.append(
            ("equivalence", "no twinbench runs; the 2017 logs are TensorFlow only")
        )
        return
    page.add(f'<h2 id="{ID}">Equivalence certificate</h2>')
    page.add(
        "<p>Whether each model's two halves were proven the same network "
        "(<code>python -m twinbench.parity &lt;model&gt;</code>: equal parameter counts, "
        "forward parity on transferred weights, training parity over a few optimizer steps), "
        "and the loss and accuracy of one run per framework, side by side.</p>"
    )
    page.add(
        table_html(
            an.parity,
            PARITY_COLS,
            lambda r: "" if r.get("certificate_status") == "pass" else "unstable",
        )
    )
    page.csv(an.parity, "parity")
    curves = []
    for model, per_backend in an.histories.items():
        page.add(f"<h3>{esc(model)}: training curves</h3>")
        page.figure(
            charts.curves(model, per_backend),
            f"curves_{model}",
            f"{model}: loss and accuracy of every backend",
        )
        for backend, history in per_backend.items():
            for metric, values in history.items():
                curves += [
                    {
                        "model": model,
                        "backend": backend,
                        "metric": metric,
                        "epoch": i + 1,
                        "value": v,
                    }
                    for i, v in enumerate(values)
                ]
    if curves:
        page.csv(pd.DataFrame(curves), "curves")
    seed_curves.section(page, an.runs)  # several seeds per framework: bands and agreement
    _loops(page, an.runs)


LOOP_COLS = [
    Col("model", "model"),
    Col("seed", "seed"),
    Col("backends", "backends"),
    Col("runs", "runs"),
    Col("epochs", "epochs compared"),
    Col("same", "same batches and samples"),
    Col("differences", "first difference"),
]


def _loops(page: Page, runs: pd.DataFrame) -> None:
    """Whether backends that differ only in framework fed the same batches and scored the same
    validation samples (analysis/compute/loops.py)."""
    table = loops.loop_agreement(runs)
    if table.empty:
        return
    page.add("<h3>The real loop: same batches, same validation samples?</h3>")
    page.add(
        "<p>Per epoch, each run records hashes of its batch order and first batch, the samples "
        "it trained and scored, and how a partial last batch is weighted; runs differing only "
        "in backend must agree. A row marked unstable names the first epoch and field that "
        "differ.</p>"
    )
    page.add(table_html(table, LOOP_COLS, lambda r: "" if r.get("same") else "unstable"))
    page.csv(table, "loops")


SECTION = Section(ID, "equivalence", write)
