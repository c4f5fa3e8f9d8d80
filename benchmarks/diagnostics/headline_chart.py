"""The README's headline figure: twinbench's time per epoch over the code users write (the 2017
Keras scripts, pytorch/examples' loop), per workload and backend, from the 2026-11-30 speed
study's files. Each bar is the median of the interleaved pairs' ratios with its exact interval;
rows measured in several runs pool their pairs, as `python -m benchmarks.table` does.

    python -m benchmarks.diagnostics.headline_chart [--out docs/img/speed-vs-outside-2026-11-30.png]
"""

from __future__ import annotations

import argparse
from pathlib import Path

from benchmarks import outside, pairs, table
from twinbench.paths import REPO_ROOT

MEASURED = REPO_ROOT / "measurements" / "2026-11-30"
# TensorFlow bilstm's three reruns, pooled with every outside-*.json as in the table of
# docs/findings/2026-11-30-speed-study.md (commands.sh's last `benchmarks.table --outside ...`)
RERUNS = (
    "recheck-outside-bilstm-tf-4pairs.json",
    "rerun-outside-bilstm-tf.json",
    "third-outside-bilstm-tf-20pairs.json",
)
GOAL = 1 / 0.98  # twinbench at least 0.98x the other side's speed
DEFAULT_OUT = REPO_ROOT / "docs" / "img" / "speed-vs-outside-2026-11-30.png"


def bars() -> list[tuple[str, float, float, float]]:
    """(label, median, interval low, interval high) per row, in the table's order."""
    files = [*sorted(MEASURED.glob("outside-*.json")), *(MEASURED / name for name in RERUNS)]
    rows = table.rows_of(files)
    found = []
    for model in outside.MODELS:
        for backend in pairs.BACKENDS:
            r = rows.get((model, backend))
            if r is not None:
                q = r["ratio"]
                found.append((f"{model}, {backend}", q["median"], q["ci_low"], q["ci_high"]))
    return found


def draw(rows: list[tuple[str, float, float, float]], out: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")  # a file, never a window
    import matplotlib.pyplot as plt

    labels = [r[0] for r in rows][::-1]
    med = [r[1] for r in rows][::-1]
    low = [r[1] - r[2] for r in rows][::-1]
    high = [r[3] - r[1] for r in rows][::-1]
    fig, ax = plt.subplots(figsize=(7.5, 6.5), dpi=110)
    y = range(len(rows))
    ax.errorbar(med, y, xerr=[low, high], fmt="o", color="#1f4e79", ecolor="#7fa7cf", capsize=3)
    ax.axvline(1.0, color="black", lw=1)
    ax.axvline(GOAL, color="#c0392b", lw=1, ls="--", label="goal: at most 1/0.98 = 1.020")
    ax.set_yticks(list(y), labels)
    ax.set_xlabel("twinbench / outside code, time per epoch (below 1: twinbench faster)")
    ax.set_title("twinbench against the code users write\n2 cores, quiet machine, 2026-11-30")
    ax.legend(loc="lower right", fontsize=8)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out)
    plt.close(fig)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    args = p.parse_args(argv)
    rows = bars()
    draw(rows, args.out)
    for label, m, lo, hi in rows:
        print(f"{label:<26} {m:.3f} [{lo:.3f}, {hi:.3f}]")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
