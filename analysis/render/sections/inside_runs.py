"""The section inside the runs: epochs, steps, throughput, memory, batch sweeps."""

from __future__ import annotations

import pandas as pd

from analysis.compute import rundetail
from analysis.compute.pipeline import Analysis
from analysis.render import runcharts
from analysis.render.htmlkit import Col, esc, table_html
from analysis.render.page import Page, Section

ID = "inside"


DETAIL_COLS = [
    Col("workload", "workload"),
    Col("config_label", "configuration"),
    Col("repeat", "repeat", "g"),
    Col("batch_size", "batch", "g"),
    Col("median_step_ms", "median step (ms)", "s"),
    Col("p95_step_ms", "95th pct step (ms)", "s"),
    Col("steady_samples_per_s", "samples/s", "n0"),
    Col("time_to_target_s", "time to target (s)", "s"),
    Col("peak_rss_mib", "peak RSS (MiB)", "s"),
    Col("cpu_time_training_s", "CPU time in training (s)", "s"),
    Col("busy_cores_training", "busy cores", "s"),
    Col("kernel_share_training", "in the kernel", "pct"),
    Col("faults_per_step", "page faults per step", "n0"),
]


def _detail_table(detail: pd.DataFrame, target: float | None) -> pd.DataFrame:
    def quantile(values: list[float], q: float) -> float | None:
        return float(pd.Series(values).quantile(q)) if values else None

    shown = detail.assign(
        median_step_ms=[quantile(v, 0.5) for v in detail["steady_step_ms"]],
        p95_step_ms=[quantile(v, 0.95) for v in detail["steady_step_ms"]],
    )
    drop = ["steady_step_ms", "steady_step_s", "epoch_times_s", "val_accuracy", "val_loss"]
    if target is None:
        drop.append("time_to_target_s")
    return shown.drop(columns=drop)


def write(page: Page, an: Analysis) -> None:
    target = an.options.target_accuracy
    detail = rundetail.details(an.runs, target)
    if detail.empty:
        return
    page.add(f'<h2 id="{ID}">Inside the runs: epochs, steps, throughput, memory</h2>')
    page.add(
        "<p>One run per configuration in the charts (its first repeat); every run in the "
        "table. Step times come from each run's <code>steps.json</code>, steady state only "
        "(the run's first steps and each epoch's first step left out). Peak RSS is the "
        "worker's resident-memory high-water mark; CPU time and busy cores (CPU seconds per "
        "wall second) cover training, read before and after it, never inside a step. "
        "In the kernel: the share of the training steps' CPU time spent in the operating "
        "system, with the page faults per step beside it; above a few percent it is fresh "
        "memory being faulted in (an allocator returning large temporaries after each step), "
        "not the framework's arithmetic."
        + (f" Time to target: wall-clock until validation accuracy first reached {target:g}."
           if target is not None else "")
        + "</p>"
    )  # fmt: skip
    firsts = rundetail.first_repeats(detail)
    for workload, rows in firsts.groupby("workload", sort=False):
        page.add(f"<h3>{esc(workload)}</h3>")
        page.figure(
            runcharts.epochs_steps_throughput(rows, str(workload)),
            f"inside_{workload}",
            f"{workload}: time per epoch, step-time distribution, throughput",
        )
        page.figure(
            runcharts.wallclock_curves(rows, str(workload), target),
            f"wallclock_{workload}",
            f"{workload}: validation accuracy and loss against wall-clock time",
        )
    for model, sweep in rundetail.batch_sweeps(detail).items():
        page.add(f"<h3>{esc(model)}: batch size swept</h3>")
        page.figure(
            runcharts.batch_sweep(model, sweep),
            f"batch_{model}",
            f"{model}: throughput and step time against batch size",
        )
        page.csv(sweep, f"batch_sweep_{model}")
    table = _detail_table(detail, target)
    page.add(table_html(table, DETAIL_COLS))
    page.csv(table, "inside_runs")


SECTION = Section(ID, "inside runs", write)
