"""The machine peak (twinbench.measure.peak) and the kernel-library effect, from the records: one
framework-neutral GEMM peak per machine and core count, each framework's own GEMM beside it."""

from __future__ import annotations

import math
import re
from typing import Any

import pandas as pd

from analysis.render.htmlkit import Col, prose, table_html

GEMM = re.compile(r"^gemm_(?P<library>.+)_gflops$")


def libraries(runs: pd.DataFrame) -> list[str]:
    """The libraries the records probed (twinbench.measure.peak: numpy and each runtime), in the
    order
    their columns appear: whatever the machine that wrote them had, not a fixed list."""
    return [m["library"] for c in runs.columns if (m := GEMM.match(str(c)))]


def _num(v: Any) -> float | None:
    ok = isinstance(v, int | float) and not isinstance(v, bool) and math.isfinite(v)
    return float(v) if ok else None


def columns(record: dict[str, Any]) -> dict[str, Any]:
    """Flat columns of a record's probes: the kernels it ran (twinbench.measure.kernels), the
    machine
    peak and its framework's own GEMM (empty where not probed)."""
    kernels = record.get("kernels")
    row: dict[str, Any] = {}
    if isinstance(kernels, dict):
        row["kernels_summary"] = kernels.get("summary")
        row["kernels_onednn_isa"] = (kernels.get("onednn") or {}).get("isa")
        row["kernels_mkl"] = (kernels.get("mkl") or {}).get("header")
    mp = record.get("machine_peak")
    if not isinstance(mp, dict):
        return row
    libs = mp.get("libraries") if isinstance(mp.get("libraries"), dict) else {}
    limit = mp.get("isa_limit") if isinstance(mp.get("isa_limit"), dict) else {}
    flops = record.get("flops") if isinstance(record.get("flops"), dict) else {}
    row |= {
        "machine_peak_gflops": _num(mp.get("machine_peak_gflops")),
        "machine_peak_library": mp.get("best_library"),
        "peak_cores": mp.get("cores"),
        # the GEMM's size: a bfloat16 run's peak may be probed smaller than float32's, and
        # rates of different sizes are not a ratio (analysis/compute/exec_matrix.py)
        "peak_probe_size": (mp.get("probe") or {}).get("size"),
        "isa_limit_gflops": _num(limit.get("gflops")),
        "isa_limit_clock": limit.get("clock_source"),
        "peak_exceeds_isa_limit": mp.get("exceeds_isa_limit"),
        "framework_gemm_gflops": _num(flops.get("framework_gemm_gflops")),
        "kernel_library_effect": _num(flops.get("kernel_library_effect")),
        "fraction_of_framework_gemm": _num(flops.get("fraction_of_framework_gemm")),
        "achieved_above_peak": flops.get("achieved_above_peak"),
    }
    for lib in libs:
        entry = libs.get(lib) if isinstance(libs.get(lib), dict) else {}
        row[f"gemm_{lib}_gflops"] = _num(entry.get("gflops"))
        row[f"gemm_{lib}_kernel"] = entry.get("kernel")
    return row


def peaks(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per machine and core count that measured its peak."""
    if "machine_peak_gflops" not in runs:
        return pd.DataFrame()
    ok = runs[(runs["status"] == "ok") & runs["machine_peak_gflops"].notna()]
    found = libraries(ok.dropna(axis=1, how="all"))
    keep = [
        "machine",
        "peak_cores",
        "machine_peak_gflops",
        "machine_peak_library",
        *(f"gemm_{lib}_{k}" for lib in found for k in ("gflops", "kernel")),
        "isa_limit_gflops",
        "isa_limit_clock",
        "peak_exceeds_isa_limit",
    ]
    out = ok[[c for c in keep if c in ok]].drop_duplicates(["machine", "peak_cores"])
    for lib in found:
        out[f"{lib}_share"] = out[f"gemm_{lib}_gflops"] / out["machine_peak_gflops"]
    return out.sort_values(["machine", "peak_cores"])


def lines(runs: pd.DataFrame) -> list[str]:
    """For the terminal: the peak and each library's GEMM per machine and cores."""
    out = []
    table = peaks(runs)
    found = libraries(table)
    for _, r in table.iterrows():
        libs = ", ".join(
            f"{lib} {r[f'gemm_{lib}_gflops']:.0f} ({r[f'{lib}_share']:.0%})"
            for lib in found
            if pd.notna(r.get(f"gemm_{lib}_gflops"))
        )
        flag = "  ! above the ISA x clock limit" if r["peak_exceeds_isa_limit"] else ""
        out.append(
            f"machine peak cpus={r['peak_cores']}: {r['machine_peak_gflops']:.0f} GFLOP/s "
            f"({r['machine_peak_library']}); each library's GEMM: {libs}{flag}"
        )
    above = runs.get("achieved_above_peak", pd.Series(dtype=object)).fillna(False).astype(bool)
    if above.any():
        out.append(
            f"  ! {int(above.sum())} run(s) ran faster than the machine peak: the cached peak "
            "was measured under load; delete its file under ~/.cache/twinbench/peak and re-run"
        )
    return [*out, ""] if out else []


def section(page: Any, an: Any) -> None:
    """The machine peak per machine and cores, and the kernel-library effect per framework."""
    table = peaks(an.runs)
    if table.empty:
        return
    html = prose("machine_peak")
    page.add(html.heading())
    page.add(html.intro())
    cols = [
        Col("machine", "machine"),
        Col("peak_cores", "cores", "g"),
        Col("machine_peak_gflops", "machine peak GFLOP/s", "s"),
        Col("machine_peak_library", "best library"),
    ]
    for lib in libraries(table):
        cols += [
            Col(f"gemm_{lib}_kernel", f"{lib} kernel"),
            Col(f"gemm_{lib}_gflops", f"{lib} GEMM GFLOP/s", "s"),
            Col(f"{lib}_share", f"{lib} / peak", "pct"),
        ]
    cols += [
        Col("isa_limit_gflops", "ISA x clock limit", "s"),
        Col("peak_exceeds_isa_limit", "above limit", "bool"),
    ]
    page.add(table_html(table, cols, lambda r: "unstable" if r["peak_exceeds_isa_limit"] else ""))
    page.csv(table, "machine_peak")
    if any(table["peak_exceeds_isa_limit"].fillna(False)):
        page.add(html.above_isa_limit())


def section_kernels(page: Any, an: Any) -> None:
    """Which kernels each configuration ran, where its runs carried the kernel probe."""
    runs = an.runs
    if "kernels_summary" not in runs or runs["kernels_summary"].isna().all():
        return
    shown = runs[runs["kernels_summary"].notna()].drop_duplicates(["workload", "config_label"])
    html = prose("machine_peak")
    page.add(html.kernels_heading())
    page.add(html.kernels_intro())
    page.add(
        table_html(
            shown,
            [
                Col("workload", "workload"),
                Col("config_label", "configuration"),
                Col("kernels_summary", "kernels (calls in the probe)"),
                Col("kernels_onednn_isa", "oneDNN ISA"),
                Col("kernels_mkl", "MKL build"),
            ],
        )
    )
