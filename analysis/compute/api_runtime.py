"""The framework gap split in two: the model API's cost and the runtime's effect.

A backend is a model API on a runtime (frameworks/registry.py; the records carry both). Two
backends on one runtime with different APIs (Keras on torch vs native torch) differ only by the
API: their time ratio is the **API effect**. Two backends with one API on different runtimes
(Keras on TensorFlow, torch, JAX) differ only by the runtime: the **runtime effect**. Which pairs
exist is read from the records, never assumed; with none, the section is absent.

Each effect is "time of `backend` / time of `base`" (above 1: `backend` is slower), the ratio of
medians with the Welch t-interval on logs of twinbench.stats.ratio_ci, on the same machine,
workload, device, cores and threads, each backend's default settings. Bases are chosen so the
effects chain: an API effect is measured from the reference backend where it is one side; a
runtime effect from the backend that shares the reference's runtime. So reference -> (API) ->
same-runtime Keras -> (runtime) -> other runtimes multiplies to the plain framework ratio.
"""

from __future__ import annotations

import math
from typing import Any

import matplotlib as mpl
import pandas as pd
from matplotlib.figure import Figure

from analysis.compute import effects
from analysis.load import backends
from analysis.render import charts
from analysis.render.htmlkit import Col, fmt, render, table_html

KINDS = {"api": "API effect", "runtime": "runtime effect"}
KIND_COLOURS = {"api": "#e6550d", "runtime": "#3182bd"}


def _identity(row: pd.Series) -> tuple[Any, Any]:
    return row.get("api"), row.get("runtime")


def defaults(configs: pd.DataFrame) -> pd.DataFrame:
    """Per cell, each backend's default-settings configuration (effects.default_variant)."""
    ok = configs[configs["n_ok"] > 0]
    rows = [
        effects.default_variant(g)
        for _, g in ok.groupby([*effects.SAME_CELL, "backend"], dropna=False, sort=False)
    ]
    return pd.DataFrame(rows).reset_index(drop=True) if rows else pd.DataFrame()


def _base_first(a: pd.Series, b: pd.Series, kind: str, reference: str, ranked: list[str]) -> bool:
    """Whether `a` is the base (denominator) of the pair: see the module docstring."""
    if kind == "api" and reference in (a["backend"], b["backend"]):
        return a["backend"] == reference
    if kind == "runtime":
        ref_runtime = backends.identity(reference)["runtime"]
        if ref_runtime in (a["runtime"], b["runtime"]):
            return a["runtime"] == ref_runtime
    return ranked.index(a["backend"]) < ranked.index(b["backend"])


def split(configs: pd.DataFrame, reference: str | None = None) -> pd.DataFrame:
    """One row per cell and pair of backends that differ in exactly one of API and runtime."""
    cells = defaults(configs)
    if cells.empty or "api" not in cells or "runtime" not in cells:
        return pd.DataFrame()
    ranked = backends.order(cells["backend"])
    reference = reference or backends.choose_reference(ranked, None) or ""
    rows = []
    for key, cell in cells.groupby(effects.SAME_CELL, dropna=False, sort=False):
        members = [r for _, r in cell.iterrows() if None not in _identity(r)]
        for i, a in enumerate(members):
            for b in members[i + 1 :]:
                same_api, same_runtime = a["api"] == b["api"], a["runtime"] == b["runtime"]
                if same_api == same_runtime:
                    continue  # identical, or differing in both: not one effect alone
                kind = "runtime" if same_api else "api"
                # Within a runtime group, only pairs with the group's base: effects that chain.
                base, other = (a, b) if _base_first(a, b, kind, reference, ranked) else (b, a)
                rows.append(_effect(key, kind, base, other))
    if not rows:
        return pd.DataFrame()
    out = pd.DataFrame(rows)
    # A runtime effect is read from one base per API: drop pairs between two non-base runtimes.
    return _chain(out, reference).reset_index(drop=True)


def _chain(out: pd.DataFrame, reference: str) -> pd.DataFrame:
    ref_runtime = backends.identity(reference)["runtime"]
    keep = []
    for _, row in out.iterrows():
        if row["kind"] == "runtime":
            same = out[
                (out["kind"] == "runtime")
                & (out["workload"] == row["workload"])
                & (out["machine"] == row["machine"])
                & (out["cpus"] == row["cpus"])
                & (out["device"] == row["device"])
                & (out["api"] == row["api"])
            ]
            has_ref_base = (same["base_runtime"] == ref_runtime).any()
            keep.append(not has_ref_base or row["base_runtime"] == ref_runtime)
        else:
            keep.append(True)
    return out[keep]


def _effect(key: tuple, kind: str, base: pd.Series, other: pd.Series) -> dict[str, Any]:
    ratio, lo, hi = effects._ratio(other["samples"], base["samples"])
    shared = base["runtime"] if kind == "api" else base["api"]
    return {
        **dict(zip(effects.SAME_CELL, key, strict=True)),
        "kind": kind,
        "effect": KINDS[kind],
        "api": base["api"] if kind == "runtime" else None,
        "runtime": base["runtime"] if kind == "api" else None,
        "shared": shared,
        "backend": other["backend"],
        "base": base["backend"],
        "backend_label": other.get("backend_label") or other["backend"],
        "base_label": base.get("backend_label") or base["backend"],
        "base_runtime": base["runtime"],
        "backend_time": other["time"],
        "base_time": base["time"],
        "ratio": ratio,
        "ratio_ci_low": lo,
        "ratio_ci_high": hi,
    }


def four_way(configs: pd.DataFrame, present: list[str]) -> dict[str, dict[str, Any]]:
    """Per workload: one row per cell with each backend's time and interval (default settings),
    the backends in `present` as columns."""
    cells = defaults(configs)
    out: dict[str, dict[str, Any]] = {}
    for workload, w in cells.groupby("workload", sort=False):
        rows = []
        for key, cell in w.groupby(effects.SAME_CELL, dropna=False, sort=False):
            by = {r["backend"]: r for _, r in cell.iterrows()}
            keyed = dict(zip(effects.SAME_CELL, key, strict=True))
            where = "gpu" if keyed["device"] == "cuda" else f"cpu{keyed['cpus']}"
            rows.append(
                {
                    "where": where,
                    "machine": keyed["machine"],
                    "cells": [_time_cell(by.get(b)) for b in present],
                }
            )
        out[str(workload)] = {"rows": rows}
    return out


def _time_cell(row: pd.Series | None) -> dict[str, str]:
    if row is None:
        return {"time": "not run", "interval": ""}
    lo, hi = row["time_ci_low"], row["time_ci_high"]
    interval = "single run" if math.isnan(lo) else f"[{fmt(lo, 's')}, {fmt(hi, 's')}]"
    return {"time": fmt(row["time"], "s"), "interval": f"{interval}, n={row['n_ok']}"}


def chart(rows: pd.DataFrame, workload: str) -> Figure:
    """Horizontal bars, one per effect and core count, with intervals; 1.0 = no effect."""
    rows = rows.assign(k=rows["kind"] != "api").sort_values(["cpus", "k", "backend"], kind="stable")
    rows = rows.reset_index(drop=True)
    labels = [
        f"{KINDS[r.kind]}, {r.where}: {r.backend_label} / {r.base_label}" for r in rows.itertuples()
    ]
    fig, (ax,) = charts._figure(8, 0.5 * len(rows) + 1.6)
    with mpl.rc_context(charts.BASE_STYLE):
        ax.grid(False)
        ax.grid(axis="x", color="#e5e5e5")
        charts.ratio_bars(
            ax,
            rows["ratio"],
            rows["ratio_ci_low"],
            rows["ratio_ci_high"],
            labels,
            [KIND_COLOURS[k] for k in rows["kind"]],
        )
        ax.set_xlabel("time of the backend / time of its base (above 1: the backend is slower)")
        ax.set_title(f"API and runtime effects: {workload}")
    return fig


COLS = [
    Col("workload", "workload"),
    Col("machine", "machine"),
    Col("cpus", "cores", "g"),
    Col("effect", "effect"),
    Col("shared", "shared"),
    Col("backend_label", "backend"),
    Col("base_label", "base"),
    Col("backend_time", "backend time (s)", "s"),
    Col("base_time", "base time (s)", "s"),
    Col("ratio", "backend / base", "x"),
    Col("ratio_ci_low", "95% CI low", "x"),
    Col("ratio_ci_high", "95% CI high", "x"),
]


def section(page: Any, an: Any) -> None:
    """The report section: absent where no two backends differ in only the API or the
    runtime."""
    effects_table = split(an.configs, an.reference)
    if effects_table.empty:
        return
    effects_table["where"] = [
        "gpu" if d == "cuda" else f"cpu{c}"
        for d, c in zip(effects_table["device"], effects_table["cpus"], strict=True)
    ]
    present = backends.order(an.configs.loc[an.configs["n_ok"] > 0, "backend"])
    labels = {b: backends.identity(b, _first(an.configs, b)) for b in present}
    listed = [
        {"name": b, "label": labels[b]["label"], "api": labels[b]["api"],
         "runtime": labels[b]["runtime"]}
        for b in present
    ]  # fmt: skip
    page.add(render("api_runtime.html.j2", metric_name=an.metric_name, backends=listed))
    for workload, table in four_way(an.configs, present).items():
        page.add(
            render(
                "api_runtime_workload.html.j2",
                workload=workload,
                metric_name=an.metric_name,
                backends=listed,
                rows=table["rows"],
            )
        )
        rows = effects_table[effects_table["workload"] == workload]
        if rows.empty:
            continue
        page.figure(
            chart(rows, workload),
            f"api_runtime_{workload}",
            f"{workload}: API effect and runtime effect with intervals",
        )
    page.add(table_html(effects_table, COLS))
    page.csv(effects_table.drop(columns=["where"]), "api_runtime_effects")


def _first(configs: pd.DataFrame, backend: str) -> dict[str, Any]:
    """The backend's identity columns as a record would carry them."""
    row = configs[configs["backend"] == backend].iloc[0]
    return {
        "backend_api": row.get("api"),
        "backend_runtime": row.get("runtime"),
        "backend_label": row.get("backend_label"),
    }
