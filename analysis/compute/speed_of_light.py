"""Speed of light per workload (twinbench.measure.speed_of_light), from the records: the model's own
matrix products timed alone with the best kernel on the machine, summed per step, and each
framework's steady step as a fraction of that limit."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from analysis.render.htmlkit import Col, prose, table_html

KEYS = ["workload", "machine", "cpus", "backend"]
ABOVE = (
    "a steady step ran faster than its speed of light: the limit was measured under load; "
    "delete its sol-*.json under ~/.cache/twinbench/peak (or measure.peak_cache_dir) and re-run"
)


def _num(v: Any) -> float | None:
    ok = isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
    return float(v) if ok else None


def columns(record: dict[str, Any]) -> dict[str, Any]:
    """Flat columns of a record's speed of light (empty where not measured)."""
    sol = record.get("speed_of_light")
    if not isinstance(sol, dict):
        return {}
    kernels = [k for k in sol.get("kernels") or [] if isinstance(k, dict)]
    best = sorted({str(k.get("best_library")) for k in kernels if k.get("best_library")})
    return {
        "sol_step_s": _num(sol.get("sol_step_s")),
        "sol_fraction": _num(sol.get("fraction_of_speed_of_light")),
        "sol_framework_step_s": _num(sol.get("framework_sol_step_s")),
        "sol_framework_fraction": _num(sol.get("fraction_of_framework_sol")),
        "sol_best_libraries": ", ".join(best) or None,
        "sol_kernel_calls": sum(int(k.get("count") or 0) for k in kernels) or None,
        "sol_above_limit": bool(sol.get("above_speed_of_light")),
    }


def table(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per workload x machine x cores x framework: the limit and the median fraction."""
    if "sol_step_s" not in runs:
        return pd.DataFrame()
    ok = runs[(runs["status"] == "ok") & runs["sol_step_s"].notna()]
    if ok.empty:
        return pd.DataFrame()
    agg = {
        "sol_step_s": "median",
        "sol_fraction": "median",
        "sol_framework_step_s": "median",
        "sol_framework_fraction": "median",
        "sol_best_libraries": "first",
        "sol_kernel_calls": "first",
        "sol_above_limit": "any",
    }
    out = ok.groupby(KEYS, as_index=False).agg({k: v for k, v in agg.items() if k in ok})
    # the steady step the fraction divides: limit / fraction (median over the repeats)
    out["steady_step_s"] = out["sol_step_s"] / out["sol_fraction"]
    return out.sort_values(KEYS)


def lines(runs: pd.DataFrame) -> list[str]:
    """For the terminal: each framework's steady step against its workload's speed of light."""
    t = table(runs)
    if t.empty:
        return []
    out = ["speed of light (the model's products alone, best kernel each; measure.speed_of_light)"]
    for _, r in t.iterrows():
        out.append(
            f"  {r['workload']} cpu{r['cpus']} {r['backend']}: limit {r['sol_step_s'] * 1e3:.2f} "
            f"ms/step, steady {r['steady_step_s'] * 1e3:.2f} ms: {r['sol_fraction']:.0%} of the "
            "speed of light" + ("  ! faster than its limit" if r["sol_above_limit"] else "")
        )
    if t["sol_above_limit"].any():
        out.append(f"  ! {ABOVE}")
    return [*out, ""]


def section(page: Any, an: Any) -> None:
    """The speed of light per workload and each framework's steady step against it."""
    t = table(an.runs)
    if t.empty:
        return
    html = prose("speed_of_light")
    page.add(html.heading())
    page.add(html.intro())
    cols = [
        Col("workload", "workload"),
        Col("machine", "machine"),
        Col("cpus", "cores", "g"),
        Col("backend", "framework"),
        Col("sol_step_s", "speed of light per step", "ms"),
        Col("steady_step_s", "steady step (median)", "ms"),
        Col("sol_fraction", "fraction of speed of light", "pct"),
        Col("sol_framework_step_s", "own-kernel limit", "ms"),
        Col("sol_framework_fraction", "fraction of own-kernel limit", "pct"),
        Col("sol_best_libraries", "best kernels from"),
        Col("sol_kernel_calls", "kernel calls per step", "g"),
    ]
    page.add(table_html(t, cols, lambda r: "unstable" if r["sol_above_limit"] else ""))
    page.csv(t, "speed_of_light")
    if t["sol_above_limit"].any():
        page.add(html.above_limit(ABOVE))
