"""Framework ratios from paired, interleaved runs: one ratio per pair, then their median.

An interleaved sweep (twinbench/launch/interleave.py) measures the configurations that differ only
in
framework one right after the other, round by round, and gives each run a `pair_id`,
`<series>-r<round>`: the runs of one round share it, and the series names the sweep and what they
share (model, cores, settings). Whatever the machine did during a round (a neighbour, the
frequency of the minute) reaches both halves of its pair, so the ratio of the pair's two times
cancels it, where the ratio of two medians taken over the whole sweep would not.

Each pair gives reference / other (with the default reference torch: below 1, torch faster, as the
report's other framework effects read); the comparison is the median of the pairs' ratios with
the exact order-statistic interval (twinbench.stats.paired_ratio: 95% from six pairs on, [min,
max] with the coverage it has below that). A pair missing a half (failed, or not yet run) is left
out and counted. Reads result records only; never imports a framework.

    python -m analysis.compute.paired <sweep dir or result.json>... [--reference torch]
        [--metric steady_step_s|epoch_s|training_s] [--json]
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from analysis.errors import AnalysisError
from analysis.load import backends
from analysis.load.records import find_result_files, read_record
from twinbench import stats


def _timing(name: str) -> Callable[[dict[str, Any]], float | None]:
    return lambda r: ((r.get("timing") or {}).get(name) or {}).get("median")


def _training_s(record: dict[str, Any]) -> float | None:
    times = record.get("epoch_times_s") or []
    return float(sum(times)) if times else None


# What a pair's runs are compared on: each run's own median (or total), in seconds.
METRICS: dict[str, Callable[[dict[str, Any]], float | None]] = {
    "steady_step_s": _timing("steady_step_s"),
    "epoch_s": _timing("epoch_s"),
    "training_s": _training_s,
}


@dataclass(frozen=True)
class Pair:
    pair_id: str
    reference_value: float
    other_value: float
    reference_first: bool | None  # None: a start time is missing

    @property
    def ratio(self) -> float:
        return self.reference_value / self.other_value


@dataclass(frozen=True)
class PairedComparison:
    series: str
    model: str | None
    cpus: int | None
    reference: str
    other: str
    metric: str
    pairs: list[Pair]
    incomplete: int  # pairs of this series with a half missing or failed
    summary: stats.Summary

    @property
    def ratios(self) -> list[float]:
        return [p.ratio for p in self.pairs]

    @property
    def verdict(self) -> str:
        s = self.summary
        if s.ci_high < 1:
            return f"{self.reference} faster"
        if s.ci_low > 1:
            return f"{self.other} faster"
        return "undecided: the interval holds 1"

    def as_dict(self) -> dict[str, Any]:
        return {
            "series": self.series,
            "model": self.model,
            "cpus": self.cpus,
            "reference": self.reference,
            "other": self.other,
            "metric": self.metric,
            "ratio": self.summary.as_dict(),
            "pairs": [{"pair_id": p.pair_id, "ratio": p.ratio} for p in self.pairs],
            "reference_first": sum(bool(p.reference_first) for p in self.pairs),
            "incomplete": self.incomplete,
            "verdict": self.verdict,
        }


def series_of(pair_id: str) -> str:
    return pair_id.rsplit("-r", 1)[0]


def compare(
    records: Iterable[dict[str, Any]],
    reference: str = backends.DEFAULT_REFERENCE,
    metric: str = "steady_step_s",
) -> list[PairedComparison]:
    """One comparison per series and framework other than `reference` present in it."""
    if metric not in METRICS:
        raise ValueError(f"unknown metric '{metric}'; choose one of: {', '.join(METRICS)}")
    value = METRICS[metric]
    # pair_id -> backend -> record (the last one seen: a resumed round measured once)
    rounds: dict[str, dict[str, dict[str, Any]]] = {}
    for r in records:
        if r.get("pair_id") and r.get("backend"):
            rounds.setdefault(r["pair_id"], {})[r["backend"]] = r
    by_series: dict[str, list[str]] = {}
    for pid in rounds:
        by_series.setdefault(series_of(pid), []).append(pid)

    out = []
    for series, pids in sorted(by_series.items()):
        others = sorted({b for pid in pids for b in rounds[pid]} - {reference})
        for other in others:
            pairs, incomplete = [], 0
            for pid in sorted(pids, key=_round):
                ref, oth = rounds[pid].get(reference), rounds[pid].get(other)
                a, b = (_ok_value(x, value) for x in (ref, oth))
                if a is None or b is None:
                    incomplete += 1
                    continue
                pairs.append(Pair(pid, a, b, _first(ref, oth)))
            if not pairs:
                continue
            sample = next(x for x in rounds[pairs[0].pair_id].values())
            out.append(
                PairedComparison(
                    series=series,
                    model=sample.get("model"),
                    cpus=sample.get("cpus"),
                    reference=reference,
                    other=other,
                    metric=metric,
                    pairs=pairs,
                    incomplete=incomplete,
                    summary=stats.paired_ratio(
                        [p.reference_value for p in pairs], [p.other_value for p in pairs]
                    ),
                )
            )
    return out


def _round(pair_id: str) -> int:
    tail = pair_id.rsplit("-r", 1)[-1]
    return int(tail) if tail.isdigit() else 0


def _ok_value(record: dict[str, Any] | None, value: Callable) -> float | None:
    if record is None or record.get("status") != "ok":
        return None
    v = value(record)
    return float(v) if v is not None and v > 0 else None


def _first(ref: dict[str, Any], other: dict[str, Any]) -> bool | None:
    a, b = ref.get("started"), other.get("started")
    return None if not a or not b else a < b  # ISO 8601 in UTC: text order is time order


def table(comparisons: list[PairedComparison]) -> str:
    """Plain text: one line per comparison with its interval and every pair's ratio."""
    if not comparisons:
        return "paired ratios: no interleaved pairs (run a sweep with -m and repeats)"
    lines = ["paired ratios (reference / other, median of the pairs' ratios, exact interval)"]
    for c in comparisons:
        s = c.summary
        lines.append(
            f"  {c.model} cpus={c.cpus} {c.metric}: {c.reference}/{c.other} {s.median:.3f} "
            f"[{s.ci_low:.3f}, {s.ci_high:.3f}] ({s.confidence:.0%}, {s.n} pairs"
            + (f", {c.incomplete} incomplete" if c.incomplete else "")
            + f"): {c.verdict}"
        )
        lines.append("    pairs: " + ", ".join(f"{r:.3f}" for r in c.ratios))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:

    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("paths", nargs="+", type=Path)
    p.add_argument("--reference", default=backends.DEFAULT_REFERENCE)
    p.add_argument("--metric", choices=list(METRICS), default="steady_step_s")
    p.add_argument("--json", action="store_true", help="print the comparisons as JSON")
    args = p.parse_args(argv)
    try:
        records = [read_record(f) for path in args.paths for f in find_result_files(path)]
    except AnalysisError as exc:
        print(f"analysis.compute.paired: error: {exc}", file=sys.stderr)
        return 2
    found = compare(records, args.reference, args.metric)
    print(json.dumps([c.as_dict() for c in found], indent=2) if args.json else table(found))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
