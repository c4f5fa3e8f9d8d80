"""The precision x execution-mode matrix: per workload and backend, {float32, bfloat16} x
{eager, compiled} with the steady step, the start-up cost of the first step, the loss against
float32, and the break-even step count of compiling.

Break-even: a compiled run pays `c_c` once (its first step over its steady step: tracing and
compilation) and then `s_c` per step; eager pays `c_e` and `s_e`. Compiled's total time drops
below eager's after n* = (c_c - c_e) / (s_e - s_c) steps; never where compiled steps are not
faster. With repeats, its low and high are the range of n* over every pairing of one compiled
run with one eager run: a range of runs, not a confidence interval. A percentile bootstrap of
medians printed here before; at 2-4 runs a side that bootstrap covers far below 95% for ratios
(docs/findings/2026-12-01-ratio-interval-coverage.md), and break-even has no A/A truth to check
an interval against, so no coverage is claimed.

bfloat16 against the hardware: each bfloat16 cell's step speed-up over the float32 cell of the
same mode (float32 step / bfloat16 step) beside its framework's own GEMM speed-up on the same
cores (bfloat16 GFLOP/s / float32 GFLOP/s, from the records' peak probes, only where both were
probed at one size). Where the GEMM gains 2x and the step does not, the rest of the step (the
ops that are not products, conversions, dispatch) holds the difference: the per-layer profile
says where.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np
import pandas as pd

from twinbench.stats import summarize

STEADY = "steady_step_s"
OVERHEAD = "startup_first_step_over_steady_s"
CELL = ["workload", "backend", "precision", "exec_mode"]


def break_even(overhead_c: float, overhead_e: float, steady_c: float, steady_e: float) -> float:
    """Steps after which compiled's total time is below eager's; inf if it never is."""
    gain = steady_e - steady_c
    if gain <= 0:
        return math.inf
    return max(0.0, (overhead_c - overhead_e) / gain)


def break_even_interval(
    compiled: pd.DataFrame, eager: pd.DataFrame
) -> tuple[float, float | None, float | None]:
    """n* from the medians of each mode's repeats, and the range of n* over every pairing of
    one compiled run with one eager run, widened to hold the point (None with one repeat a
    side)."""
    best = break_even(
        float(np.median(compiled[OVERHEAD])),
        float(np.median(eager[OVERHEAD])),
        float(np.median(compiled[STEADY])),
        float(np.median(eager[STEADY])),
    )
    if len(compiled) < 2 or len(eager) < 2:
        return best, None, None
    pairs = [
        break_even(float(c[OVERHEAD]), float(e[OVERHEAD]), float(c[STEADY]), float(e[STEADY]))
        for _, c in compiled.iterrows()
        for _, e in eager.iterrows()
    ]
    return best, min(min(pairs), best), max(max(pairs), best)  # an inf pair: the top is inf


def matrix(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per cell (workload, backend, precision, exec_mode) of the ok runs that say both."""
    need = [*CELL, STEADY, OVERHEAD, "final_loss"]
    if any(c not in runs for c in need):
        return pd.DataFrame()
    ok = runs[(runs["status"] == "ok") & runs["exec_mode"].notna()].dropna(subset=[STEADY])
    rows: list[dict[str, Any]] = []
    for key, cell in ok.groupby(CELL, dropna=False):
        steady = summarize(cell[STEADY].astype(float))
        row = dict(zip(CELL, key, strict=True))
        row.update(
            n=len(cell),
            steady_step_s=steady.median,
            steady_ci_low_s=steady.ci_low,
            steady_ci_high_s=steady.ci_high,
            first_step_over_steady_s=float(np.median(cell[OVERHEAD].astype(float))),
            final_loss=float(np.median(cell["final_loss"].astype(float))),
            bf16_units=_one(cell.get("bf16_units")),
            gemm_gflops=_median(cell.get("framework_gemm_gflops")),
            gemm_size=_one(cell.get("peak_probe_size")),
            compiled_graphs=_one(cell.get("compiled_graphs")),
        )
        rows.append(row)
    table = pd.DataFrame(rows)
    if table.empty:
        return table
    return _with_comparisons(table, ok)


def _one(values: pd.Series | None) -> Any:
    """The cell's value where its runs agree, else None."""
    if values is None:
        return None
    seen = list(dict.fromkeys(v for v in values.tolist() if v is not None and v == v))
    return seen[0] if len(seen) == 1 else None


def _median(values: pd.Series | None) -> float | None:
    """The median of the cell's finite values, None where it has none."""
    if values is None:
        return None
    finite = pd.to_numeric(values, errors="coerce").dropna()
    return float(np.median(finite)) if len(finite) else None


def _bf16_against_fp32(bf16: pd.Series, fp32: pd.Series) -> tuple[float, float]:
    """The bfloat16 cell's step speed-up and its framework's GEMM speed-up over float32; the
    GEMM's is NaN unless both cells' GEMMs were probed at one size."""
    step = float(fp32["steady_step_s"]) / float(bf16["steady_step_s"])
    rates = (bf16["gemm_gflops"], fp32["gemm_gflops"])
    same_size = bf16["gemm_size"] is not None and bf16["gemm_size"] == fp32["gemm_size"]
    if not same_size or any(r is None or math.isnan(r) or r <= 0 for r in rates):
        return step, math.nan
    return step, rates[0] / rates[1]


def _with_comparisons(table: pd.DataFrame, ok: pd.DataFrame) -> pd.DataFrame:
    """Loss against the float32 cell of the same mode; break-even on each compiled row."""
    table = table.copy()
    table["loss_minus_fp32"] = np.nan
    table["break_even_steps"] = np.nan
    table["break_even_low"] = np.nan
    table["break_even_high"] = np.nan
    table["bf16_step_speedup"] = np.nan
    table["bf16_gemm_speedup"] = np.nan
    index = table.set_index(CELL).index
    for i, row in table.iterrows():
        fp32 = (row["workload"], row["backend"], "float32", row["exec_mode"])
        if fp32 in index:
            fp32_row = table.loc[index.get_loc(fp32)]
            table.loc[i, "loss_minus_fp32"] = row["final_loss"] - fp32_row["final_loss"]
            if row["precision"] == "bfloat16":
                table.loc[i, ["bf16_step_speedup", "bf16_gemm_speedup"]] = list(
                    _bf16_against_fp32(row, fp32_row)
                )
        if row["exec_mode"] != "compiled":
            continue
        same = (
            (ok["workload"] == row["workload"])
            & (ok["backend"] == row["backend"])
            & (ok["precision"] == row["precision"])
        )
        compiled, eager = (
            ok[same & (ok["exec_mode"] == "compiled")],
            ok[same & (ok["exec_mode"] == "eager")],
        )
        if eager.empty:
            continue
        n, lo, hi = break_even_interval(compiled, eager)
        table.loc[i, ["break_even_steps", "break_even_low", "break_even_high"]] = [n, lo, hi]
    return table
