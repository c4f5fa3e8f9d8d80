"""Where the cores go: each layer's op time at the fewest and the most cores a framework was
profiled at (runs with profile=true), so a hardware effect is explained layer by layer.

A layer whose op time halves used the second core; one whose op time stays did not (a GEMM too
small for the framework to split, a serial kernel such as a dropout mask's generator). Op time
is summed over threads: where a framework runs independent ops side by side on inter-op threads
(TensorFlow), a layer's op time can grow while the step shrinks, and the profiled step's wall
time (the first row of each framework) is what the cores bought. On the Intel host's MNIST MLP
(2026-12-07) torch's fc1 and fc2 went from 1.7 to 1.0 ms and its dropout stayed at 1.5;
TensorFlow's fc1 and fc2 stayed at 1.3-1.4 ms (docs/findings/2026-12-07-hardware-by-round.md).
"""

from __future__ import annotations

from typing import Any

import pandas as pd

from analysis.compute import layers
from analysis.load import backends

KEYS = ["workload", "machine", "backend", "settings_label"]
WALL = "step (profiled wall time)"


def table(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per workload x machine x backend x layer with two or more core counts profiled:
    median op ms per step at the fewest and the most cores, and few / most (a speed-up)."""
    if "profile_ops_ms" not in runs:
        return pd.DataFrame()
    ok = runs[(runs["status"] == "ok") & runs["profile_ops_ms"].notna()]
    # As in the hardware effect (effects.hardware): a run whose thread counts differ from its
    # cores measures the threads, not the cores, and settings variants are series of their own.
    for column in ("threads_intra_requested", "threads_inter_requested"):
        if column in ok:
            threads = pd.to_numeric(ok[column], errors="coerce")
            ok = ok[(threads.isna() | (threads == pd.to_numeric(ok["cpus"]))).fillna(False)]
    rows = [
        {**row, "settings_label": r.get("settings_label", "")}
        for _, r in ok.iterrows()
        for row in layers.run_rows(r)
    ]
    rows += [
        {"workload": r["workload"], "machine": r["machine"], "cpus": r["cpus"],
         "backend": r["backend"], "settings_label": r.get("settings_label", ""),
         "layer": WALL, "group": "", "ms": r["profile_wall_ms"]}
        for _, r in ok.iterrows()
    ]  # fmt: skip
    if not rows:
        return pd.DataFrame()
    medians = pd.DataFrame(rows).groupby([*KEYS, "layer", "cpus"])["ms"].median().reset_index()
    out: list[dict[str, Any]] = []
    for key, one in medians.groupby([*KEYS, "layer"], sort=False):
        cores = sorted(one["cpus"].unique())
        if len(cores) < 2:
            continue
        few = float(one.loc[one["cpus"] == cores[0], "ms"].iloc[0])
        most = float(one.loc[one["cpus"] == cores[-1], "ms"].iloc[0])
        out.append(
            {
                **dict(zip([*KEYS, "layer"], key, strict=True)),
                "few_cpus": int(cores[0]),
                "most_cpus": int(cores[-1]),
                "few_ms": few,
                "most_ms": most,
                "speedup": few / most if most > 0 else float("nan"),
            }
        )
    if not out:
        return pd.DataFrame()
    t = pd.DataFrame(out)
    order = {b: i for i, b in enumerate(backends.order(t["backend"]))}
    return (
        t.assign(_b=t["backend"].map(order), _w=t["layer"] != WALL, _ms=-t["few_ms"])
        .sort_values(["workload", "machine", "_b", "_w", "_ms"])
        .drop(columns=["_b", "_w", "_ms"])
    )


def lines(runs: pd.DataFrame, n: int = 4) -> list[str]:
    """The terminal's lines: per workload and framework, the profiled step and its `n` largest
    layers, fewest cores to most."""
    t = table(runs)
    if t.empty:
        return []
    out = [
        "where the cores go (profile=true): op ms per step, fewest cores -> most "
        "(summed over threads)"
    ]
    for (workload, _machine, backend, settings), rows in t.groupby(KEYS, sort=False):
        parts = [
            f"{r['layer']} {r['few_ms']:.2f} -> {r['most_ms']:.2f}"
            for _, r in rows.head(n + 1).iterrows()
        ]
        first = rows.iloc[0]
        out.append(
            f"  {workload} {backend}{'' if settings in ('', 'default') else ' ' + settings} "
            f"cpu{first['few_cpus']} -> cpu{first['most_cpus']}: " + "; ".join(parts)
        )
    return [*out, ""]
