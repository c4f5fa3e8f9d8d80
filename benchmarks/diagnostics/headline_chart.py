"""The README's headline figure: twinbench's time per epoch over the code users write (the 2017
Keras scripts, pytorch/examples' loop), per workload and backend.

Two tables can be drawn. The default is the 2026-11-30 speed study's (fixed counts of sequential
pairs): each bar is the median of the interleaved pairs' ratios with its exact interval, against
the 2% goal; rows measured in several runs pool their pairs, as `python -m benchmarks.table`
does. With `--turns FILE...` it draws rows of the sequential engine (pairs in turns, each row
stopped where it decided): each bar is the geometric mean of the pairs' ratios with its 95%
confidence sequence, coloured by its outcome, against the ±margin band the decision used.

    python -m benchmarks.diagnostics.headline_chart [--out docs/img/speed-vs-outside-2026-11-30.png]
    python -m benchmarks.diagnostics.headline_chart --out docs/img/speed-vs-outside-in-turns.png \
        --turns measurements/2026-12-01/speed-turns*/outside-*.json
"""

from __future__ import annotations

import argparse
import math
from dataclasses import dataclass
from pathlib import Path

from benchmarks import outside, pairs, table
from twinbench import sequential
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
DEFAULT_TITLE = "twinbench against the code users write\n2 cores, quiet machine, 2026-11-30"
TURNS_XLIM = (0.4, 2.5)  # the chart of rows in turns: where its outcomes are told apart
# a decided row's colour says its outcome; an undecided row is grey
OUTCOME_COLOURS = {
    "a_faster": "#1e7b34",
    "equivalent": "#1f4e79",
    "b_faster": "#c0392b",
    "undecided": "#8c8c8c",
}


@dataclass(frozen=True)
class Bar:
    label: str  # "model, backend"
    ratio: float  # twinbench / outside code
    low: float  # the interval; nan where a short row has none yet
    high: float
    outcome: str | None = None  # rows of the sequential engine only


def rows_in_order(files: list[Path]) -> list[tuple[str, dict]]:
    """(label, row) for every measured row, in the table's order."""
    rows = table.rows_of(files)
    return [
        (f"{model}, {backend}", rows[(model, backend)])
        for model in outside.MODELS
        for backend in pairs.BACKENDS
        if (model, backend) in rows
    ]


def bars() -> list[Bar]:
    """The 2026-11-30 table: each row's median ratio and exact interval."""
    files = [*sorted(MEASURED.glob("outside-*.json")), *(MEASURED / name for name in RERUNS)]
    return [
        Bar(label, r["ratio"]["median"], r["ratio"]["ci_low"], r["ratio"]["ci_high"])
        for label, r in rows_in_order(files)
    ]


def decided_bars(files: list[Path]) -> list[Bar]:
    """Rows of the sequential engine: each row's ratio, confidence sequence and outcome."""
    found = []
    for label, r in rows_in_order(files):
        if not r.get("pairing"):
            raise SystemExit(f"{label}: not a row of the sequential engine (no `pairing`)")
        d = sequential.Decision(**r["decision"])
        has_interval = 0 < d.ratio_low <= d.ratio_high < math.inf
        low, high = (d.ratio_low, d.ratio_high) if has_interval else (math.nan, math.nan)
        found.append(Bar(label, d.ratio, low, high, d.outcome))
    return found


def compared_of(files: list[Path]) -> str:
    """What the rows' ratios compare, for the axis: a training step for resident worker pairs
    (each row names it, `compared`), an epoch for fresh-process pairs; one chart, one measure."""
    found = {r.get("compared", "seconds per epoch") for _, r in rows_in_order(files)}
    if len(found) != 1:
        raise SystemExit(f"the rows compare different things ({sorted(found)}): one chart each")
    return found.pop().replace("seconds per", "time per")


def draw(
    rows: list[Bar],
    out: Path,
    title: str | None = None,
    margin: float | None = None,
    compared: str = "time per epoch",
) -> None:
    """A dot per row with its interval; the 2% goal line, or the ±margin band of a decision."""
    import matplotlib

    matplotlib.use("Agg")  # a file, never a window
    import matplotlib.pyplot as plt

    rows = rows[::-1]  # the table's first row at the top
    fig, ax = plt.subplots(figsize=(7.5, 0.35 * len(rows) + 1.5), dpi=110)
    for y, bar in enumerate(rows):
        colour = OUTCOME_COLOURS[bar.outcome] if bar.outcome else "#1f4e79"
        if math.isnan(bar.low):  # no interval yet: the dot alone, hollow
            ax.plot(bar.ratio, y, "o", mfc="none", color=colour)
            continue
        err = [[bar.ratio - bar.low], [bar.high - bar.ratio]]
        ax.errorbar(bar.ratio, y, xerr=err, fmt="o", color=colour, ecolor=colour, capsize=3)
    ax.axvline(1.0, color="black", lw=1)
    ax.set_yticks(list(range(len(rows))), [b.label for b in rows])
    ax.set_xlabel(f"twinbench / outside code, {compared} (below 1: twinbench faster)")
    if margin is None:
        ax.axvline(GOAL, color="#c0392b", lw=1, ls="--", label="goal: at most 1/0.98 = 1.020")
        ax.legend(loc="lower right", fontsize=8)
    else:
        margin_axis(ax, rows, margin)
    ax.set_title(title or DEFAULT_TITLE)
    ax.grid(axis="x", alpha=0.3)
    fig.tight_layout()
    out.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(out, bbox_inches="tight")
    plt.close(fig)


def margin_axis(ax, rows: list[Bar], margin: float) -> None:
    """The chart of decided rows: the ±margin band, one legend entry per outcome drawn, and a
    log axis (ratios and their inverses equally far from 1); a row whose confidence sequence is
    still wider than the axis runs off its edge (its cell in the table gives the numbers)."""
    from matplotlib.ticker import NullFormatter

    ax.set_xscale("log")
    ax.set_xlim(*TURNS_XLIM)
    ticks = [0.5, 0.75, 1.0, 1.5, 2.0]
    ax.set_xticks(ticks, [f"{t:g}" for t in ticks])
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.axvspan(1 - margin, 1 + margin, color="#dddddd", alpha=0.6, label=f"±{margin:.0%}")
    for outcome, colour in OUTCOME_COLOURS.items():
        if any(b.outcome == outcome for b in rows):
            ax.plot([], [], "o", color=colour, label=table.outcome_words(outcome, margin))
    ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.07), ncol=2, fontsize=8)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--out", type=Path, default=DEFAULT_OUT)
    p.add_argument(
        "--turns", nargs="+", type=Path, help="outside.py --out files of the sequential engine"
    )
    p.add_argument("--title", help="the chart's title (default: the 2026-11-30 table's)")
    args = p.parse_args(argv)
    if args.turns:
        rows = decided_bars(args.turns)
        margins = {table.row_margin(r) for _, r in rows_in_order(args.turns)}
        if len(margins) != 1:
            p.error(f"the rows were decided at different margins ({sorted(margins)})")
        draw(rows, args.out, args.title, margin=margins.pop(), compared=compared_of(args.turns))
    else:
        rows = bars()
        draw(rows, args.out, args.title)
    for b in rows:
        words = f"  {b.outcome}" if b.outcome else ""
        print(f"{b.label:<26} {b.ratio:.3f} [{b.low:.3f}, {b.high:.3f}]{words}")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
