"""Held-out halves for the hardware effect's speed-up (1 core to 2, per backend): a Welch
interval over runs pooled from every sweep against one value per sweep
(analysis/compute/sessions.py), 2,000 random splits of the sweeps into two halves. Run from the
repository root of the clone whose results/sweeps holds the day's README command 1 sweeps:

    python measurements/2026-12-06/sessions-as-units/speedups_held_out.py
"""

from __future__ import annotations

import math
from pathlib import Path

import numpy as np

from analysis.compute import sessions
from analysis.load.table import runs_table
from twinbench import stats

SPLITS = 2000


def halves_disagree(a_rows, b_rows, metric: str, rng) -> tuple[int, str]:
    """(the sweeps both row sets have, each interval of a/b over them with how often the
    intervals of two random halves of those sweeps disagree). Also used by
    measurements/2026-12-06/relative-held-out/relative_held_out.py."""
    sweeps = sorted(set(a_rows["sweep"]) & set(b_rows["sweep"]))

    def pooled(chosen):
        a = a_rows[a_rows["sweep"].isin(chosen)][metric].dropna().tolist()
        b = b_rows[b_rows["sweep"].isin(chosen)][metric].dropna().tolist()
        return tuple(map(math.log, stats.ratio_ci(a, b)))

    def per_sweep(chosen):
        a, b = a_rows[a_rows["sweep"].isin(chosen)], b_rows[b_rows["sweep"].isin(chosen)]
        found = sessions.ratio_over_sweeps(
            a[metric].tolist(), a["sweep"].tolist(), b[metric].tolist(), b["sweep"].tolist()
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
    return len(sweeps), "; ".join(out)


def main() -> None:
    runs = runs_table([Path("results/sweeps")])
    ok = runs[(runs["status"] == "ok") & runs["sweep"].notna()]
    rng = np.random.default_rng(0)
    for metric in ("steady_step_s", "train_time_s"):
        for backend in ("torch", "tensorflow"):
            mine = ok[ok["backend"] == backend]
            one, two = mine[mine["cpus"] == 1], mine[mine["cpus"] == 2]
            count, text = halves_disagree(one, two, metric, rng)
            print(f"{metric} {backend} {count} sweeps; " + text)


if __name__ == "__main__":
    main()
