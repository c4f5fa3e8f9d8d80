"""From the runs table to every figure the report and the terminal show, in one place."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import pandas as pd

from analysis.compute import (
    certificates,
    effects,
    environment,
    gpu_beside,
    machine_peak,
    outcome,
    pricing,
    relative,
    summary,
)
from analysis.compute.scaling import model as scaling_model
from analysis.errors import AnalysisError
from analysis.load import backends
from analysis.load.dedupe import Issues, dedupe
from analysis.load.legacy import SOURCE as LEGACY_SOURCE
from analysis.load.records import SOURCE
from twinbench import stats
from twinbench.sequential import Design

AUTO = "auto"  # --metric's default: auto_metric chooses


@dataclass
class Options:
    baseline: str | None = None
    # The backend every other one is compared with (None: analysis/load/backends.py's default).
    reference: str | None = None
    pricing: str = pricing.DEFAULT_TABLE
    # "auto": the steady step where every finished run is capped (auto_metric), else training time
    metric: str = AUTO
    unstable_width: float = stats.UNSTABLE_REL_WIDTH
    parity_dirs: list[Path] = field(default_factory=list)
    inputs: list[Path] = field(default_factory=list)
    # False: a missing common baseline leaves the relative tables empty instead of failing
    # (the sweep-end summary must still show the framework comparison).
    strict_baseline: bool = True
    # Validation accuracy a run must reach: the report gives each run's time to it (MLPerf's
    # time-to-train); None: no target, curves only.
    target_accuracy: float | None = None


@dataclass
class Analysis:
    options: Options
    runs: pd.DataFrame
    issues: Issues
    configs: pd.DataFrame
    baselines: dict[str, relative.Baseline]
    prices: dict[str, pricing.PriceTable]
    relative: pd.DataFrame
    framework: pd.DataFrame
    hardware: pd.DataFrame
    gpu_beside: pd.DataFrame  # GPU runs beside the CPU core counts (gpu_beside.py)
    scaling_gap: pd.DataFrame
    software: pd.DataFrame
    peak: pd.DataFrame
    parity: pd.DataFrame
    histories: dict[str, dict[str, dict[str, list[float]]]]
    machines: pd.DataFrame
    threads: pd.DataFrame
    baseline_error: str | None = None
    scaling: scaling_model.ScalingModel | None = None
    reference: str | None = None  # the backend the framework tables divide by
    design: Design | None = None  # the margin the verdicts read intervals at (outcome.design_of)
    metric_note: str = ""  # why --metric auto chose the steady step, where it did

    @property
    def failed(self) -> pd.DataFrame:
        return self.runs[self.runs["status"] != "ok"]

    @property
    def metric_name(self) -> str:
        return summary.METRICS[self.options.metric][1]

    @property
    def metric_definition(self) -> str:
        return summary.METRICS[self.options.metric][2]


def refuse_without_finished_runs(runs: pd.DataFrame, paths: list[Path]) -> None:
    """A report compares finished runs: with none, say so in one line before anything is
    written (it was a traceback and a half-written report_files/ from `python -m analysis`, and
    `KeyError: 'source'` at the end of a sweep whose every run failed)."""
    failed = runs[runs["status"] != "ok"]
    if runs.empty or len(failed) < len(runs):
        return
    first = str(failed["error"].dropna().iloc[0]) if failed["error"].notna().any() else "no error"
    raise AnalysisError(
        f"no finished runs under {', '.join(map(str, paths))}: all {len(failed)} failed "
        f"(first error: {first}); nothing to compare"
    )


def auto_metric(runs: pd.DataFrame) -> tuple[str, str]:
    """(metric, why) for `--metric auto`: the steady step where every finished run is a
    twinbench run capped at max_steps (a deciding sweep's resident workers, a sweep with
    max_steps), since such a run's training time is mostly its start-up and warm-up; the 2017
    benchmark's training time otherwise. README command 1's report once put TensorFlow's
    hardware speed-up at 1.02x by training time under a first screen's 1.13x per step
    (2026-12-07): the decisions and the screen read the steady step."""
    ok = runs[runs["status"] == "ok"] if "status" in runs else runs.iloc[0:0]
    steady = summary.METRICS["steady_step"][0]
    capped = pd.to_numeric(ok.get("max_steps", pd.Series(dtype=float)), errors="coerce")
    if (
        len(ok)
        and (ok.get("source", pd.Series(dtype=str)) == SOURCE).all()
        and capped.notna().all()
        and steady in ok
        and ok[steady].notna().all()
    ):
        shown = ",".join(str(c) for c in sorted({int(c) for c in capped}))
        return "steady_step", (
            f"every run is capped (max_steps={shown}), so its training time is mostly start-up "
            "and warm-up; --metric train_time compares that instead"
        )
    return "train_time", ""


def analyze(runs: pd.DataFrame, options: Options) -> Analysis:
    refuse_without_finished_runs(runs, options.inputs)
    note = ""
    if options.metric == AUTO:
        metric, note = auto_metric(runs)
        options = replace(options, metric=metric)
    if options.metric not in summary.METRICS:
        raise AnalysisError(
            f"unknown metric {options.metric!r} (choose from {', '.join(summary.METRICS)})"
        )
    runs, issues = dedupe(runs)
    runs = machine_peak.rebase(runs)  # fractions of peak against the machine's best probe
    column = summary.METRICS[options.metric][0]
    ok = runs[runs["status"] == "ok"]
    if len(ok) and ok[column].isna().all():
        # Non-finite values (NaN in a hand-edited or foreign record) are read as missing.
        others = [
            name
            for name, (col, *_) in summary.METRICS.items()
            if name != options.metric and col in ok and ok[col].notna().any()
        ]
        hint = f"use --metric {others[0]}" if others else "no metric has a value: re-measure them"
        raise AnalysisError(
            f"metric {options.metric}: no successful run has a finite `{column}` (missing, or "
            f"NaN/infinite in the record); {hint}"
        )
    configs = summary.configs(runs, options.metric, options.unstable_width)
    try:
        reference = backends.choose_reference(runs.get("backend", []), options.reference)
    except ValueError as exc:
        raise AnalysisError(str(exc)) from None
    prices = {
        source: pricing.load(pricing.LEGACY_TABLE if source == LEGACY_SOURCE else options.pricing)
        for source in configs["source"].unique()
    }
    baselines: dict[str, relative.Baseline] = {}
    error = None
    for source in configs["source"].unique():
        try:
            chosen = relative.choose(configs, source, options.baseline)
        except AnalysisError as exc:
            if options.strict_baseline:
                raise
            error = str(exc)
            continue
        if chosen is not None:
            baselines[source] = chosen
    hardware = effects.hardware(configs)
    design = outcome.design_of(options.inputs)
    dirs = certificates.certificate_dirs(options.inputs, options.parity_dirs)
    return Analysis(
        options=options,
        runs=runs,
        issues=issues,
        configs=configs,
        baselines=baselines,
        prices=prices,
        relative=relative.table(configs, baselines, prices),
        framework=effects.framework(configs, options.unstable_width, reference or "", design),
        hardware=hardware,
        gpu_beside=gpu_beside.table(configs, prices),
        scaling_gap=effects.scaling_gap(hardware, configs, reference or ""),
        software=effects.software(configs, options.unstable_width, design),
        peak=effects.peak(configs),
        parity=certificates.parity(runs, dirs),
        histories=certificates.histories(runs),
        machines=environment.machines(runs),
        threads=environment.threads(runs),
        baseline_error=error,
        scaling=scaling_model.build(hardware, runs, prices),
        reference=reference,
        metric_note=note,
        design=design,
    )
