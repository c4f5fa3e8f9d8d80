"""Held-out halves for the relative table's interval (each configuration's training time over
the baseline's, tensorflow cpu2): a Welch interval over runs pooled from every sweep against one
value per sweep (analysis/compute/relative.py through sessions.ratio_over_sweeps), 2,000 random
splits of the sweeps into two halves. Two valid 95% intervals disagree in about 5% of splits.
Run from the repository root of the clone whose results/sweeps holds the day's README command 1
sweeps:

    python measurements/2026-12-06/relative-held-out/relative_held_out.py
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from analysis.compute import sessions
from analysis.load.table import runs_table
from twinbench import stats

SPLITS = 2000
BASELINE = ("tensorflow", 2)
METRIC = "train_time_s"  # the relative table's default metric


def main() -> None:
    runs = runs_table([Path("results/sweeps")])
    ok = runs[(runs["status"] == "ok") & runs["sweep"].notna()]
    rng = np.random.default_rng(0)

    def config(backend: str, cpus: int):
        return ok[(ok["backend"] == backend) & (ok["cpus"] == cpus)]

    base = config(*BASELINE)
    for backend, cpus in (("torch", 1), ("torch", 2), ("tensorflow", 1)):
        row = config(backend, cpus)
        sweeps = sorted(set(row["sweep"]) & set(base["sweep"]))

        def pooled(chosen, row=row):
            a = row[row["sweep"].isin(chosen)][METRIC].dropna().tolist()
            b = base[base["sweep"].isin(chosen)][METRIC].dropna().tolist()
            return tuple(map(math.log, stats.ratio_ci(a, b)))

        def per_sweep(chosen, row=row):
            a, b = row[row["sweep"].isin(chosen)], base[base["sweep"].isin(chosen)]
            found = sessions.ratio_over_sweeps(
                a[METRIC].tolist(), a["sweep"].tolist(), b[METRIC].tolist(), b["sweep"].tolist()
            )
            return tuple(map(math.log, found[:3]))

        out = []
        for name, way in (("pooled runs (Welch)", pooled), ("one value per sweep", per_sweep)):
            misses = 0
            for _ in range(SPLITS):
                order = list(rng.permutation(sweeps))
                a, b = way(order[: len(order) // 2]), way(order[len(order) // 2 :])
                misses += abs(a[0] - b[0]) > math.hypot((a[2] - a[1]) / 2, (b[2] - b[1]) / 2)
            c, lo, hi = way(sweeps)
            out.append(
                f"{name}: {math.exp(c):.3f} [{math.exp(lo):.3f}, {math.exp(hi):.3f}], "
                f"halves disagree {misses / SPLITS:.1%}"
            )
        print(f"{backend} cpu{cpus} / tensorflow cpu2, {len(sweeps)} sweeps; " + "; ".join(out))


if __name__ == "__main__":
    main()
