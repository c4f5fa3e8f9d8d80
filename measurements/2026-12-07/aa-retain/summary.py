"""An A/A campaign's JSON (twinbench aa) in a few lines: outcomes, false decisions and their 95%
upper bound, pairs and seconds a sequence, the spread of its units (sd of their log ratios),
and whether every interval holds the true ratio 1 (the campaign's held-out truth).

    python measurements/2026-12-07/aa-retain/summary.py <campaign.json> [...]
"""

import json
import math
import statistics
import sys
from pathlib import Path


def spread(ratios: list[float]) -> float:
    return statistics.stdev(math.log(r) for r in ratios) if len(ratios) > 1 else float("nan")


def describe(path: str) -> str:
    body = json.loads(Path(path).read_text())
    series = body["series"]
    decisions = [s["decision"] for s in series]
    pairs = [d["pairs"] for d in decisions]
    seconds = [s["seconds"] for s in series]
    sds = [spread(s["wall_ratios"]) for s in series]
    holds = sum(d["ratio_low"] <= 1 <= d["ratio_high"] for d in decisions)
    ratios = [d["ratio"] for d in decisions]
    resolved = [d["resolvable_margin"] for d in decisions if d.get("resolvable_margin")]
    lines = [
        f"{path}: {body['backend']} {body['model']} cpus={body['cpus']} "
        f"allocator={body.get('allocator', 'default')}",
        f"  sequences {body['sequences']}, outcomes {body['outcomes']}, false decisions "
        f"{body['false_decisions']} (95% upper bound {body['false_decision_upper_95']:.1%})",
        f"  pairs a sequence {min(pairs)}-{max(pairs)} (median {statistics.median(pairs):g}); "
        f"seconds {min(seconds):.0f}-{max(seconds):.0f} "
        f"(median {statistics.median(seconds):.0f})",
        f"  unit spread (sd of log ratio) {min(sds):.3f}-{max(sds):.3f} "
        f"(median {statistics.median(sds):.3f})",
        f"  ratios {min(ratios):.3f}-{max(ratios):.3f}; intervals holding 1: {holds} of "
        f"{len(decisions)}; margins resolved {min(resolved):.1%}-{max(resolved):.1%}",
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    print("\n".join(describe(p) for p in sys.argv[1:]))
