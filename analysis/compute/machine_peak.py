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
        "peak_probe_precision": (mp.get("probe") or {}).get("precision") or "float32",
        # a probe that shared its cores with other work (twinbench.measure.peak) measured less
        # than the machine can do: never the machine's peak here either
        "peak_shared": bool(mp.get("shared_cores")),
        "isa_limit_gflops": _num(limit.get("gflops")),
        "isa_limit_clock": limit.get("clock_source"),
        "isa_limit_mhz": _num(limit.get("mhz")),
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


# One peak per machine, core count and probe (a bfloat16 run's GEMM is another probe).
PEAK_KEY = ["machine", "peak_cores", "peak_probe_precision", "peak_probe_size"]


def _best_probes(runs: pd.DataFrame) -> pd.DataFrame:
    """Per PEAK_KEY, the successful run whose probe measured the highest peak without sharing
    its cores. A peak is what the machine can do, and everything else on it (another probe
    beside it, a sweep's other worker) only lowers a measured rate: records of one machine
    written before the probe checked its share hold peaks halved by a second probe on the same
    cores (twinbench.measure.peak), and the highest of them is the least disturbed."""
    if "machine_peak_gflops" not in runs:
        return pd.DataFrame()
    ok = runs[(runs["status"] == "ok") & runs["machine_peak_gflops"].notna()]
    if "peak_shared" in ok:
        ok = ok[~ok["peak_shared"].fillna(False).astype(bool)]
    for column in PEAK_KEY:
        if column not in ok:
            ok = ok.assign(**{column: None})
    ranked = ok.sort_values("machine_peak_gflops", ascending=False, kind="stable")
    return ranked.drop_duplicates(PEAK_KEY)


def rebase(runs: pd.DataFrame) -> pd.DataFrame:
    """Each run's fraction of peak, and whether it ran above it, against its machine's best
    probe (_best_probes) rather than the probe its own worker read: `fraction_of_peak` as the
    record had it is kept as `fraction_of_own_peak`."""
    best = _best_probes(runs)
    if best.empty or "achieved_gflops" not in runs:
        return runs
    peak = best.set_index(PEAK_KEY)["machine_peak_gflops"]
    keys = pd.MultiIndex.from_frame(
        runs[PEAK_KEY].astype(object).where(runs[PEAK_KEY].notna(), None)
    )
    chosen = pd.Series(peak.reindex(keys).to_numpy(), index=runs.index)
    own = runs["machine_peak_gflops"]
    # Only where the run's own peak is the machine's (not a precision's or size's own rate
    # the flops block names elsewhere): then its fraction is rebased, else it is kept.
    same = chosen.notna() & (runs["peak_gflops"] == own)
    achieved = runs["achieved_gflops"]
    out = runs.assign(fraction_of_own_peak=runs["fraction_of_peak"])
    out.loc[same, "peak_gflops"] = chosen[same]
    out.loc[same, "fraction_of_peak"] = achieved[same] / chosen[same]
    out.loc[same, "achieved_above_peak"] = (achieved[same] > chosen[same]).astype(object)
    return out


def peaks(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per machine and core count that measured its peak: its best probe."""
    ok = _best_probes(runs)
    if ok.empty:
        return ok
    found = libraries(ok.dropna(axis=1, how="all"))
    keep = [
        "machine",
        "peak_cores",
        "machine_peak_gflops",
        "machine_peak_library",
        *(f"gemm_{lib}_{k}" for lib in found for k in ("gflops", "kernel")),
        "isa_limit_gflops",
        "isa_limit_clock",
        "isa_limit_mhz",
        "peak_exceeds_isa_limit",
    ]
    out = ok[[c for c in keep if c in ok]].copy()
    for lib in found:
        out[f"{lib}_share"] = out[f"gemm_{lib}_gflops"] / out["machine_peak_gflops"]
    return out.sort_values(["machine", "peak_cores"])


def above_isa_limit(row: pd.Series) -> str:
    """The flag of a peak above cores x ISA x clock, naming the clock: a VM's /proc/cpuinfo often
    states a base clock that turbo runs above, which a timing fault cannot be told from here."""
    mhz, source = row.get("isa_limit_mhz"), str(row.get("isa_limit_clock") or "")
    if pd.isna(mhz):
        return "  ! above the ISA x clock limit"
    read = "/proc/cpuinfo states" if source.startswith("/proc/cpuinfo") else f"read ({source})"
    return (
        f"  ! above cores x ISA x {mhz:.0f} MHz, the clock {read}: turbo above it, or a probe's "
        "timing wrong"
    )


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
        flag = above_isa_limit(r) if r["peak_exceeds_isa_limit"] else ""
        precision = r.get("peak_probe_precision")
        kind = f" {precision}" if isinstance(precision, str) and precision != "float32" else ""
        out.append(
            f"machine peak{kind} cpus={r['peak_cores']}: {r['machine_peak_gflops']:.0f} GFLOP/s "
            f"({r['machine_peak_library']}); each library's GEMM: {libs}{flag}"
        )
    above = runs.get("achieved_above_peak", pd.Series(dtype=object)).fillna(False).astype(bool)
    if above.any():
        out.append(
            f"  ! {int(above.sum())} run(s) ran faster than the best GEMM peak their machine's "
            "records hold: every probe there was disturbed, or the model's FLOP count is too "
            "high; measure again on a quiet machine (measure.peak_probe, docs: Measurement)"
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
        Col("peak_probe_precision", "precision"),
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
