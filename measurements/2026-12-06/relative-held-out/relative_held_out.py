"""Held-out halves for the relative table's interval (each configuration's training time over
the baseline's, tensorflow cpu2): a Welch interval over runs pooled from every sweep against one
value per sweep (analysis/compute/relative.py through sessions.ratio_over_sweeps), 2,000 random
splits of the sweeps into two halves. Two valid 95% intervals disagree in about 5% of splits.
Run from the repository root of the clone whose results/sweeps holds the day's README command 1
sweeps:

    python measurements/2026-12-06/relative-held-out/relative_held_out.py
"""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np

from analysis.load.table import runs_table

# The held-out comparison itself is the hardware-effect check's (one copy of it).
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sessions-as-units"))
from speedups_held_out import halves_disagree

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
        count, text = halves_disagree(config(backend, cpus), base, METRIC, rng)
        print(f"{backend} cpu{cpus} / tensorflow cpu2, {count} sweeps; " + text)


if __name__ == "__main__":
    main()
