"""report.html: one self-contained page (figures embedded as base64 PNG, inline CSS, no network),
with every figure also saved as PNG and every table as CSV (full precision) beside it.

    <out>/report.html
    <out>/report_files/figures/*.png
    <out>/report_files/tables/*.csv
"""

from __future__ import annotations

import base64
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pandas as pd
from markupsafe import Markup

from analysis.compute import (
    api_runtime,
    effects,
    layers,
    machine_peak,
    pipeline,
    rundetail,
    seed_curves,
    speed_of_light,
)
from analysis.compute.pipeline import Analysis
from analysis.errors import AnalysisError
from analysis.load.legacy import SOURCE as LEGACY_SOURCE
from analysis.load.table import runs_table
from analysis.render import charts, explain, runcharts, scaling_report
from analysis.render.htmlkit import Col, esc, missing, render, slug, stability_class, table_html

FILES = "report_files"
LIST_COLUMNS = ("samples", "step_samples")  # per-repeat samples: in runs.csv, not repeated here


# ---------------------------------------------------------------- the page


@dataclass
class Page:
    out: Path
    parts: list[str] = field(default_factory=list)
    not_measured: list[tuple[str, str]] = field(default_factory=list)  # (section, why)
    figures: list[Path] = field(default_factory=list)
    tables: list[Path] = field(default_factory=list)

    @property
    def files(self) -> Path:
        return self.out / FILES

    def add(self, markup: str) -> None:
        """Markup for the page: a rendered template, or a string of markup written here (its
        values passed through esc())."""
        self.parts.append(Markup(markup))

    def anchors(self) -> set[str]:
        """The ids of the sections written so far: the header links only to those."""
        return set(re.findall(r'<h2 id="([^"]+)"', "".join(self.parts)))

    def figure(self, fig: Any, name: str, alt: str) -> None:
        data = charts.png(fig)
        path = self.files / "figures" / f"{slug(name)}.png"
        path.write_bytes(data)
        self.figures.append(path)
        encoded = base64.b64encode(data).decode("ascii")
        self.add(render("figure.html.j2", data=encoded, alt=alt))

    def csv(self, df: pd.DataFrame, name: str) -> None:
        path = self.files / "tables" / f"{slug(name)}.csv"
        df.drop(columns=[c for c in LIST_COLUMNS if c in df.columns]).to_csv(path, index=False)
        self.tables.append(path)
        self.add(render("csv.html.j2", href=path.relative_to(self.out).as_posix()))


REL_COLS = [
    Col("config_label", "configuration"),
    Col("n_ok", "ok runs", "g"),
    Col("n_failed", "failed", "g"),
    Col("time", "time (s)", "s"),
    Col("time_ci_low", "interval low", "s"),
    Col("time_ci_high", "interval high", "s"),
    Col("time_ci_confidence", "coverage", "pct"),
    Col("time_rel", "time vs baseline", "x"),
    Col("time_rel_ci_low", "CI low", "x"),
    Col("time_rel_ci_high", "CI high", "x"),
    Col("price_per_hour", "price /h", "money"),
    Col("cost", "cost", "money"),
    Col("cost_rel", "cost vs baseline", "x"),
    Col("flags", "flags"),
]


METRIC_TIME_COLUMNS = {"time", "time_ci_low", "time_ci_high", "other_time",
                       "reference_time", "variant_time"}  # fmt: skip


def _unit(cols: list[Col], an: Analysis) -> list[Col]:
    """Columns holding the compared metric: step times in ms (as everywhere else), training
    times in s."""
    if an.options.metric != "steady_step":
        return cols
    return [
        Col(c.name, c.header.replace("(s)", "(ms)"), "ms") if c.name in METRIC_TIME_COLUMNS else c
        for c in cols
    ]


def _priced(cols: list[Col], currency: str) -> list[Col]:
    """Money columns name their currency in the header."""
    names = {"price_per_hour": f"price ({currency}/h)", "cost": f"cost ({currency})"}
    return [Col(c.name, names.get(c.name, c.header), c.kind) for c in cols]


def section_relative(page: Page, an: Analysis) -> None:
    page.add('<h2 id="relative">Training time and cost relative to a baseline</h2>')
    page.add(
        f"<p>Each configuration's {esc(an.metric_name)} ({esc(an.metric_definition)}; the "
        "median over its repeats) divided by the "
        "baseline's on the same workload; cost = time × the price of the configuration (vCPUs = "
        "cores; the GPU instance for a GPU run). Bars below the dashed line are faster or "
        "cheaper than the baseline; a bold outline marks the baseline, and a ! after a value "
        "an unstable result (see its flags). Intervals need two "
        "repeats or more: for a time, the order-statistics interval of the median with the "
        "coverage it reaches (95% from six repeats on; [min, max] below that); for a ratio, "
        "a 95% percentile bootstrap (error bars).</p>"
    )
    if an.baseline_error:
        page.add(f'<p class="warn">{esc(an.baseline_error)}</p>')
    for source, base in an.baselines.items():
        price = an.prices[source]
        page.add(f"<h3>{esc(source)}: baseline <code>{esc(base.label)}</code></h3>")
        page.add(
            f'<p class="note">Baseline: {esc(base.label)} ({esc(base.reason)}). '
            f"Prices: {esc(price.describe())}</p>"
        )
        if not price.verified:
            page.add(
                '<p class="warn">The prices of this table are not verified; costs are '
                "indicative until a person checks them against the stated source.</p>"
            )
        rel = an.relative[an.relative["source"] == source]
        for workload, rows in rel.groupby("workload", sort=False):
            page.add(f"<h4>{esc(workload)}</h4>")
            page.figure(
                charts.relative_bars(rows, str(workload), base.label, an.metric_name),
                f"relative_{source}_{workload}",
                f"{workload}: time and cost relative to {base.label}",
            )
            page.add(
                table_html(rows, _unit(_priced(REL_COLS, price.currency), an), stability_class)
            )
        page.csv(rel, f"relative_{source}")


LEGACY_COLS = [
    Col("workload", "workload"),
    Col("legacy_test", "2017 test"),
    Col("label", "label"),
    Col("total_time", "total_time (s)", "g"),
    Col("total_cost", "total_cost ($)", "g"),
    Col("total_time_norm", "total_time_norm", "g"),
    Col("total_cost_norm", "total_cost_norm", "g"),
]


def legacy_table(an: Analysis) -> pd.DataFrame:
    """The 2017 notebook's result columns, with the same names, at full precision."""
    rel = an.relative[an.relative["source"] == LEGACY_SOURCE]
    if rel.empty:
        return pd.DataFrame()
    return pd.DataFrame(
        {
            "workload": rel["workload"],
            "legacy_test": rel["legacy_test"],
            "label": rel["config_label"],
            "total_time": rel["time"],
            "total_cost": rel["cost"],
            "total_time_norm": rel["time_rel"],
            "total_cost_norm": rel["cost_rel"],
        }
    ).reset_index(drop=True)


def section_legacy(page: Page, an: Analysis) -> None:
    table = legacy_table(an)
    if table.empty:
        return
    page.add('<h2 id="legacy">The 2017 benchmark, reproduced from its logs</h2>')
    page.add(
        "<p>The 2017 method: total time = sum of <code>elapsed</code> over the epochs of each "
        "platform; relative time = total / the GPU's total; cost = total time × the per-second "
        "rate (GPU instance $0.745/h; 8 vCPUs $0.060/h × (1 + 0.0607) Skylake premium, linear "
        "in vCPUs); relative cost = cost / the GPU's cost. Shown to 6 digits; the CSV has every "
        "digit.</p>"
    )
    page.add(table_html(table, LEGACY_COLS))
    page.csv(table, "legacy_2017")


FW_COLS = [
    Col("workload", "workload"),
    Col("machine", "machine"),
    Col("device", "device"),
    Col("cpus", "cores", "g"),
    Col("reference", "reference"),
    Col("other", "other"),
    Col("reference_settings", "reference settings"),
    Col("other_settings", "other settings"),
    Col("n_reference", "reference runs", "g"),
    Col("n_other", "other runs", "g"),
    Col("reference_time", "reference time (s)", "s"),
    Col("other_time", "other time (s)", "s"),
    Col("ratio", "reference / other", "x"),
    Col("ratio_ci_low", "95% CI low", "x"),
    Col("ratio_ci_high", "95% CI high", "x"),
    Col("ratio_pairs", "interleaved pairs (0: ratio of medians)", "g"),
    Col("steady_step_ratio", "steady step reference / other", "x"),
    Col("verdict", "verdict"),
]


def _verdict_class(row: pd.Series) -> str:
    verdict = str(row.get("verdict", ""))
    if "unstable" in verdict:
        return "unstable"
    return "single" if "single" in verdict or "indicative" in verdict else ""


def section_framework(page: Page, an: Analysis) -> None:
    fe = an.framework
    if fe.empty:
        page.not_measured.append(
            ("framework effect", "no workload has the reference backend and another one on "
             "the same machine, device and core count")
        )  # fmt: skip
        return
    ref = esc(fe["reference_label"].iloc[0])
    others = esc(", ".join(dict.fromkeys(fe["other_label"])))
    page.add(f'<h2 id="framework">Framework effect: {ref} vs {others}</h2>')
    page.add(
        f"<p>The reference backend's ({ref}) {esc(an.metric_name)} / each other backend's, on "
        "the same machine, workload, device, cores and threads (below 1: the reference is "
        "faster; <code>--reference</code> chooses another). Intervals: percentile "
        "bootstrap of the ratio of medians over the repeats (twinbench.stats.ratio_ci); none "
        "with a single run per side. The chart shows each backend's default settings; the "
        "table lists every pair of settings variants.</p>"
    )
    page.figure(
        charts.framework_ratios(fe[fe["headline"]]),
        "framework_effect",
        f"{ref} time / each other backend's time per workload and core count",
    )
    page.add(table_html(fe, _unit(FW_COLS, an), _verdict_class))
    page.csv(fe, "framework_effect")


HW_COLS = [
    Col("workload", "workload"),
    Col("machine", "machine"),
    Col("backend", "framework"),
    Col("settings_label", "settings"),
    Col("cpus", "cores", "g"),
    Col("time", "time (s)", "s"),
    Col("speedup", "speed-up", "x"),
    Col("speedup_ci_low", "CI low", "x"),
    Col("speedup_ci_high", "CI high", "x"),
    Col("efficiency", "efficiency", "pct"),
]
GAP_COLS = [
    Col("workload", "workload"),
    Col("machine", "machine"),
    Col("reference_cpus", "from cores", "g"),
    Col("cpus", "to cores", "g"),
    Col("reference", "reference"),
    Col("other", "other"),
    Col("reference_speedup", "reference speed-up", "x"),
    Col("other_speedup", "other speed-up", "x"),
    Col("reference_efficiency", "reference efficiency", "pct"),
    Col("other_efficiency", "other efficiency", "pct"),
    Col("speedup_ratio", "reference / other speed-up", "x"),
    Col("verdict", "verdict"),
]


def section_hardware(page: Page, an: Analysis) -> None:
    hw = an.hardware
    if hw.empty:
        page.not_measured.append(
            ("hardware effect", "no framework ran one workload at two or more core counts, "
             "threads = cores, on one machine")
        )  # fmt: skip
        return
    page.add('<h2 id="hardware">Hardware effect: scaling with cores</h2>')
    page.add(
        "<p>Speed-up = time on the fewest cores measured / time on <i>n</i> cores; parallel "
        "efficiency = speed-up / (<i>n</i> / fewest cores): 100% is perfect scaling. Runs "
        "whose thread counts differ from their cores are left out (they measure threads).</p>"
    )
    for (source, workload), _ in hw.groupby(["source", "workload"], sort=False):
        page.add(f"<h3>{esc(workload)} ({esc(source)})</h3>")
        page.figure(
            scaling_report.chart(hw[hw["source"] == source], str(workload), an),
            f"scaling_{source}_{workload}",
            f"{workload}: speed-up and efficiency",
        )
    page.add(table_html(hw, _unit(HW_COLS, an)))
    page.csv(hw, "hardware_effect")
    page.add("<h3>Where the backends scale differently</h3>")
    if an.scaling_gap.empty:
        page.add(
            "<p>Not measured: needs the reference backend and another at two or more core "
            "counts.</p>"
        )
    else:
        page.add(
            "<p>The reference backend's speed-up / each other backend's over the same core "
            "range; above 1 the reference gains more from the added cores. Called different "
            "when the speed-ups "
            f"differ by more than {effects.SCALING_GAP:.0%} or their intervals separate.</p>"
        )
        page.add(table_html(an.scaling_gap, GAP_COLS, _verdict_class))
        page.csv(an.scaling_gap, "scaling_gap")


SW_COLS = [
    Col("workload", "workload"),
    Col("machine", "machine"),
    Col("backend", "framework"),
    Col("cpus", "cores", "g"),
    Col("reference_settings", "default settings"),
    Col("variant_settings", "variant settings"),
    Col("reference_time", "default time (s)", "s"),
    Col("variant_time", "variant time (s)", "s"),
    Col("time_ratio", "variant / default", "x"),
    Col("time_ratio_ci_low", "CI low", "x"),
    Col("time_ratio_ci_high", "CI high", "x"),
    Col("verdict", "verdict"),
]


def section_software(page: Page, an: Analysis) -> None:
    se = an.software
    if se.empty:
        page.not_measured.append(("software effect", "no settings were swept"))
        return
    page.add('<h2 id="software">Software effect: settings (oneDNN, XLA, compile, ...)</h2>')
    page.add(
        "<p>A settings variant's time / the default variant's (each framework's "
        "out-of-the-box settings; in the 2017 logs, TensorFlow from pip), all else equal. "
        "Below 1 the setting helps. Settings are those each run verified in effect "
        "(<code>settings</code> in result.json), else those its config asked for.</p>"
    )
    for (source, workload), _ in se.groupby(["source", "workload"], sort=False):
        page.add(f"<h3>{esc(workload)} ({esc(source)})</h3>")
        page.figure(
            charts.software(se[se["source"] == source], str(workload)),
            f"software_{source}_{workload}",
            f"{workload}: settings variants",
        )
    page.add(table_html(se, _unit(SW_COLS, an), _verdict_class))
    page.csv(se, "software_effect")


def section_peak(page: Page, an: Analysis) -> None:
    pk = an.peak[an.peak["source"] != LEGACY_SOURCE]
    if pk.empty or not pk["measured"].any():
        page.not_measured.append(
            ("fraction of peak", "no record carries flops and a matmul peak probe")
        )
        return
    page.add('<h2 id="peak">Fraction of machine peak</h2>')
    page.add(
        "<p>Achieved GFLOP/s = analytic FLOPs per training step / steady-state step time; "
        "peak = the machine peak: the best library's float32 GEMM on the same cores (see "
        '"Machine peak" below). Rows without <code>flops</code> say "not measured".</p>'
    )
    page.figure(charts.peak(pk), "peak", "fraction of machine peak per configuration")
    shown = pk.assign(
        fraction=pk["fraction_of_peak"].map(lambda v: "not measured" if missing(v) else f"{v:.1%}")
    )
    page.add(
        table_html(
            shown,
            [
                Col("workload", "workload"),
                Col("config_label", "configuration"),
                Col("achieved_gflops", "achieved GFLOP/s", "s"),
                Col("peak_gflops", "peak GFLOP/s", "s"),
                Col("fraction", "fraction of peak"),
            ],
        )
    )
    page.csv(pk, "peak")


def section_startup(page: Page, an: Analysis) -> None:
    cols = [c for c in an.configs.columns if c.startswith("median_startup_")]
    ours = an.configs[an.configs["source"] != LEGACY_SOURCE]
    if not cols or ours.empty:
        return
    page.add('<h2 id="startup">Start-up (kept apart from the timings above)</h2>')
    page.add(
        "<p>Median seconds per configuration: framework import, graph tracing or "
        "compilation in the first step, and the rest of what happens before training runs "
        "at speed.</p>"
    )
    detail = rundetail.first_repeats(rundetail.details(an.runs))
    if not detail.empty:
        page.figure(runcharts.startup_phases(detail), "startup", "start-up phase by phase")
    shown = ours[["workload", "config_label", "n_ok", *cols]]
    page.add(
        table_html(
            shown,
            [
                Col("workload", "workload"),
                Col("config_label", "configuration"),
                Col("n_ok", "ok runs", "g"),
            ]
            + [Col(c, c.removeprefix("median_startup_"), "s") for c in cols],
        )
    )
    page.csv(shown, "startup")


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


def section_inside_runs(page: Page, an: Analysis) -> None:
    target = an.options.target_accuracy
    detail = rundetail.details(an.runs, target)
    if detail.empty:
        return
    page.add('<h2 id="inside">Inside the runs: epochs, steps, throughput, memory</h2>')
    page.add(
        "<p>One run per configuration in the charts (its first repeat); every run in the "
        "table. Step times come from each run's <code>steps.json</code>, steady state only "
        "(the run's first steps and each epoch's first step left out). Peak RSS is the "
        "worker's resident-memory high-water mark; CPU time and busy cores (CPU seconds per "
        "wall second) cover training, read before and after it, never inside a step."
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
    Col("failures", "failures"),
    Col("certificate", "file"),
]


def section_parity(page: Page, an: Analysis) -> None:
    if an.parity.empty:
        page.not_measured.append(
            ("equivalence", "no twinbench runs; the 2017 logs are TensorFlow only")
        )
        return
    page.add('<h2 id="parity">Equivalence certificate</h2>')
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


def section_environment(page: Page, an: Analysis) -> None:
    page.add('<h2 id="environment">Environment</h2>')
    machines = an.machines
    cols = [Col(c, c.replace("_", " ")) for c in machines.columns]
    page.add(table_html(machines, cols))
    page.csv(machines, "machines")
    if not an.threads.empty:
        page.add("<h3>Threads: requested and read back</h3>")
        page.add(
            "<p>Each run pins its cores and sets its thread pools before the framework "
            "loads, then reads them back. Thread pools do not see a cgroup CPU quota: a "
            "quota below the cores would throttle the run silently, so it is shown.</p>"
        )
        page.add(
            table_html(
                an.threads,
                [
                    Col("machine", "machine"),
                    Col("config_label", "configuration"),
                    Col("cpus", "cores", "g"),
                    Col("threads_intra_requested", "intra requested", "g"),
                    Col("threads_intra_actual", "intra actual", "g"),
                    Col("threads_inter_requested", "inter requested", "g"),
                    Col("threads_inter_actual", "inter actual", "g"),
                    Col("threads_verified", "verified", "bool"),
                    Col("cgroup_cpu_quota", "cgroup quota", "g"),
                    Col("quota_below_cores", "quota below cores", "bool"),
                ],
                lambda r: (
                    "unstable" if r["threads_verified"] is False or r["quota_below_cores"] else ""
                ),
            )
        )
        page.csv(an.threads, "threads")


RUN_COLS = [
    Col("machine", "machine"),
    Col("source", "source"),
    Col("workload", "workload"),
    Col("config_label", "configuration"),
    Col("repeat", "repeat", "g"),
    Col("status", "status"),
    Col("train_time_s", "training time (s)", "s"),
    Col("steady_step_s", "steady step (ms)", "ms"),
    Col("final_val_accuracy", "final val acc", "g"),
    Col("conflict", "conflict"),
    Col("error", "error"),
    Col("path", "file"),
]


def section_runs(page: Page, an: Analysis) -> None:
    if not an.failed.empty:
        page.add('<h2 id="failed">Failed runs</h2>')
        page.add(
            f'<p class="warn">{len(an.failed)} of {len(an.runs)} runs failed. They are '
            "kept in every table (as failed) and left out of the timings.</p>"
        )
        page.add(table_html(an.failed, RUN_COLS, lambda r: "failed"))
        page.csv(an.failed, "failed_runs")
    page.add('<h2 id="runs">All runs</h2>')
    page.add(table_html(an.runs, RUN_COLS, lambda r: "failed" if r["status"] != "ok" else ""))
    page.csv(an.runs, "runs")
    page.csv(an.configs, "configurations")


# The report, in page order. A section is a function (page, analysis) -> None that writes its
# heading (<h2 id="...">), text, figures (page.figure) and tables (table_html + page.csv), or
# says why it has nothing (page.not_measured) and writes nothing. To add one: write the
# function, put it in this list, and its (id, link text) in NAV.
SECTIONS: list[Callable[[Page, Analysis], None]] = [
    explain.section_verdict,  # the verdict leads the report
    section_relative,
    section_legacy,
    section_framework,
    api_runtime.section,
    section_hardware,
    scaling_report.section,
    section_software,
    section_inside_runs,
    section_peak,
    machine_peak.section,
    speed_of_light.section,
    section_startup,
    explain.section_budget,
    layers.section,
    section_parity,
    section_environment,
    machine_peak.section_kernels,
    section_runs,
]

NAV = [  # in page order
    ("verdict", "verdict"),
    ("relative", "time & cost"),
    ("legacy", "2017"),
    ("framework", "framework"),
    ("api-runtime", "API vs runtime"),
    ("hardware", "hardware"),
    ("scaling-model", "scaling"),
    ("software", "software"),
    ("inside", "inside runs"),
    ("peak", "peak"),
    ("machine-peak", "machine peak"),
    ("speed-of-light", "speed of light"),
    ("startup", "start-up"),
    ("budget", "budget"),
    ("layers", "layers"),
    ("parity", "equivalence"),
    ("environment", "environment"),
    ("failed", "failures"),
    ("runs", "all runs"),
]


def _page(an: Analysis, page: Page) -> str:
    """The whole document: header, links to the sections present (no dead link), sections."""
    runs, present = an.runs, page.anchors()
    return render(
        "report.html.j2",
        when=datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        runs=len(runs),
        ok=int((runs["status"] == "ok").sum()),
        machines=runs["machine"].nunique(),
        workloads=runs["workload"].nunique(),
        metric_name=an.metric_name,
        metric_definition=an.metric_definition,
        inputs=", ".join(str(p) for p in an.options.inputs),
        nav=[(a, t) for a, t in NAV if a in present],
        issues=an.issues.lines(),
        unstable_width=f"{an.options.unstable_width:.0%}",
        not_measured=page.not_measured,
        parts=page.parts,
    )


def write(an: Analysis, out: Path) -> Path:
    """Write report.html and its files under `out`; returns the report's path."""
    out = Path(out)
    try:
        for sub in ("figures", "tables"):
            (out / FILES / sub).mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise AnalysisError(
            f"cannot write the report into {out}: {exc.strerror or exc}; choose a folder with --out"
        ) from None
    page = Page(out)
    for section in SECTIONS:
        section(page, an)
    html_text = _page(an, page)
    report = out / "report.html"
    report.write_text(html_text, encoding="utf-8")
    (out / FILES / "manifest.json").write_text(
        json.dumps(
            {
                "figures": [p.relative_to(out).as_posix() for p in page.figures],
                "tables": [p.relative_to(out).as_posix() for p in page.tables],
            },
            indent=1,
        )
    )
    return report


def after_sweep(sweep_dir: Path) -> str:
    """For the sweep-end callback: write the sweep's report; one line saying where, or why not.

    Never raises for bad input: the sweep has finished, and its exit status belongs to its
    runs, not to the report.
    """
    try:
        options = pipeline.Options(inputs=[Path(sweep_dir)], strict_baseline=False)
        path = write(pipeline.analyze(runs_table([Path(sweep_dir)]), options), Path(sweep_dir))
    except AnalysisError as exc:
        return f"report not written: {exc}"
    except Exception as exc:  # a report bug must not cost the user the sweep's own summary
        return f"report not written: {type(exc).__name__}: {exc}"
    return f"report: {path}"
