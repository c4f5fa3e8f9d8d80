"""The compact terminal summary: relative time and cost, the framework effect, failures."""

from __future__ import annotations

import io
import math
from typing import Any

import pandas as pd
from rich import box
from rich.console import Console
from rich.table import Table

from analysis.compute import (
    attention_split,
    effects,
    layers,
    layers_by_cores,
    machine_peak,
    speed_of_light,
    summary,
    verdict,
)
from analysis.compute.pipeline import Analysis
from analysis.render.sections import decisions


def _fmt(value: Any, kind: str = "") -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)) or value is pd.NA:
        return "-"
    if kind == "x":
        return f"{value:.2f}x"
    if kind == "s":
        return f"{value:.4g}"
    if kind == "ms":  # step times: milliseconds, as in the run summaries and the report
        return f"{value * 1e3:.4g}"
    return str(value)


# rich's SIMPLE_HEAD with an ASCII rule under the header: readable in any terminal encoding and
# in logs; columns two spaces apart.
HEAD_RULE = box.Box("    \n    \n -- \n    \n    \n    \n    \n    \n", ascii=True)


def _grid(header: list[str], rows: list[list[str]]) -> list[str]:
    """A plain-text table drawn by rich (no colour, never wrapped: a log line stays one line)."""
    table = Table(
        box=HEAD_RULE, show_edge=False, pad_edge=False, padding=(0, 1, 0, 0), header_style=None
    )
    for name in header:
        table.add_column(name, no_wrap=True, overflow="ignore")
    for row in rows:
        table.add_row(*row)
    out = io.StringIO()
    Console(file=out, width=10_000, color_system=None, highlight=False).print(table)
    return [line.rstrip() for line in out.getvalue().splitlines()]


def _unit(metric: str) -> str:
    """Training time in seconds; a step time in milliseconds."""
    return "ms" if metric == "steady_step" else "s"


def relative_lines(an: Analysis) -> list[str]:
    lines, unit = [], _unit(an.options.metric)
    for source, base in an.baselines.items():
        rel = an.relative[an.relative["source"] == source]
        if rel.empty:
            continue
        lines.append(
            f"{source}: {an.metric_name} and cost relative to {base.label} ({base.reason}); "
            f"prices: {an.prices[source].name}"
        )
        rows = [
            [
                str(r["workload"]),
                str(r["config_label"]),
                str(r["n_ok"]),
                _fmt(r["time"], unit),
                _fmt(r["time_rel"], "x"),
                _fmt(r["cost_rel"], "x"),
                str(r["flags"]),
            ]
            for _, r in rel.iterrows()
        ]
        header = ["workload", "configuration", "runs", f"time {unit}", "time", "cost", "flags"]
        lines += [*_grid(header, rows), ""]
    return lines


def framework_lines(an: Analysis) -> list[str]:
    if an.options.metric == "steady_step":
        return _framework_table(an.framework, an.metric_name, _unit(an.options.metric))
    # Training time includes each run's tracing and warm-up; the steady-state step ratio
    # beside it separates the framework's speed from its start-up.
    steady = _framework_table(
        _steady_framework(an), summary.METRICS["steady_step"][1], _unit("steady_step")
    )
    caps = verdict.capped_steps(an.runs)
    if not caps:
        return _framework_table(an.framework, an.metric_name, _unit(an.options.metric)) + steady
    # Capped runs (a resident worker's life, max_steps) time mostly start-up and warm-up: the
    # steady step leads, as in the verdict, and the training time says what it is (README
    # command 1's report read "torch faster 0.54x" over training time under its decision,
    # TensorFlow faster per step, 2026-12-06).
    name = (
        f"{an.metric_name} (capped runs, max_steps={','.join(map(str, caps))}: mostly start-up "
        "and warm-up; the steady step above leads)"
    )
    return steady + _framework_table(an.framework, name, _unit(an.options.metric))


def _steady_framework(an: Analysis) -> pd.DataFrame:
    column = summary.METRICS["steady_step"][0]
    ok = an.runs[an.runs["status"] == "ok"]
    if ok.empty or column not in ok or ok[column].isna().all():
        return pd.DataFrame()
    configs = summary.configs(an.runs, "steady_step", an.options.unstable_width)
    return effects.framework(configs, an.options.unstable_width, an.reference or "", an.design)


def _framework_table(fe: pd.DataFrame, metric_name: str, unit: str) -> list[str]:
    if fe.empty:
        return []
    fe = fe[fe["headline"]]
    reference = str(fe["reference"].iloc[0]) if len(fe) else ""
    rows = []
    for _, r in fe.iterrows():
        ci = (
            f"[{r['ratio_ci_low']:.2f}, {r['ratio_ci_high']:.2f}]{verdict.over_sweeps(r, 'ratio')}"
            if not math.isnan(r["ratio_ci_low"])
            else "-"
        )
        where = "gpu" if r["device"] == "cuda" else f"cpu{r['cpus']}"
        rows.append(
            [
                str(r["workload"]),
                str(r["machine"]),
                where,
                str(r["other"]),
                _fmt(r["reference_time"], unit),
                _fmt(r["other_time"], unit),
                _fmt(r["ratio"], "x"),
                ci,
                str(r["verdict"]),
            ]
        )
    header = [
        "workload",
        "machine",
        "cores",
        "vs",
        f"{reference} {unit}",
        f"other {unit}",
        "ratio",
        "95% CI",
        "",
    ]
    title = (
        f"framework effect: {reference} / each other backend's {metric_name} "
        f"(below 1: {reference} faster)"
    )
    return [title, *_grid(header, rows), ""]


def failure_lines(an: Analysis) -> list[str]:
    failed = an.failed
    if failed.empty:
        return []
    lines = [f"{len(failed)} of {len(an.runs)} runs failed:"]
    for _, r in failed.iterrows():
        lines.append(f"  {r['workload']} {r['config_label']}: {r['error']}  ({r['path']})")
    return [*lines, ""]


def decided_lines(an: Analysis, printed_below: bool) -> list[str] | None:
    """Where the inputs hold a deciding sweep's decisions, they are the verdict: their
    intervals hold at every look, which the per-table intervals over a few runs do not claim.
    Several sweeps of one comparison are each one decision, never pooled (a host's phase moves a
    whole session): their outcomes are counted and the latest is shown.
    None: nothing was decided sequentially (the per-table intervals' verdict leads)."""
    found = decisions.rows(an.options.inputs, an.runs)
    if not found and not printed_below:
        return None
    lead = (
        "verdict: the sequential decisions (each interval holds at every look at its pairs); "
        "the intervals in the tables describe the runs and decide nothing"
    )
    if printed_below:
        return [lead.replace("decisions", "decisions printed below", 1), ""]
    groups: dict[tuple[str, str, str], list[dict[str, Any]]] = {}
    for r in found:
        groups.setdefault((r["workloads"], r["cores"], r["compared"]), []).append(r)
    several = any(len(rs) > 1 for rs in groups.values())
    lines = [lead + ("; a comparison's sweeps are counted, not pooled:" if several else ":")]
    for (workloads, cores, compared), rs in groups.items():
        name = f"{workloads} {cores}".strip()
        if len(rs) == 1:
            r = rs[0]
            lines.append(f"  {name}: {compared} {r['interval']}: {r['outcome']}")
            continue
        latest = max(rs, key=lambda r: r["sweep"])  # sweep folders are named by their start
        kinds = [r["kind"] for r in rs]
        tally = ", ".join(f"{kind} {kinds.count(kind)}" for kind in dict.fromkeys(kinds))
        ratios = [r["ratio"] for r in rs]
        lines.append(
            f"  {name}: {compared} in {len(rs)} sweeps, ratios {min(ratios):.3f}-"
            f"{max(ratios):.3f}: {tally}"
        )
        lines.append(f"    latest, {latest['sweep']}: {latest['interval']}: {latest['outcome']}")
    return [*lines, ""]


def render(an: Analysis, with_failures: bool = True, decided_below: bool = False) -> str:
    """The summary; `with_failures=False` where the caller lists failures itself;
    `decided_below` where the caller prints a deciding sweep's decisions after it."""
    # The verdict leads: which framework is faster, and why where the metrics disagree.
    lines = decided_lines(an, decided_below) or verdict.lines(
        an.runs, an.options.metric, an.options.unstable_width, an.reference, an.design
    )
    if an.metric_note:  # --metric auto chose the steady step: say why, before its tables
        lines.append(f"compared: {an.metric_name}, since {an.metric_note}")
    lines += relative_lines(an) + framework_lines(an) + machine_peak.lines(an.runs)
    lines += speed_of_light.lines(an.runs)
    lines += layers.lines(an.runs, an.reference)
    lines += layers_by_cores.lines(an.runs)
    lines += attention_split.lines(an.runs)
    lines += failure_lines(an) if with_failures else []
    if an.baseline_error:
        lines.append(f"no relative table: {an.baseline_error}")
    lines += [f"note: {line}" for line in an.issues.lines()]
    lines += [f"note: {line}" for line in decisions.unreadable(an.options.inputs)]
    if not lines:
        return "no successful runs to compare"
    return "\n".join(lines).rstrip()
