"""The table of README command 1's runs on the Intel host, from each run's decisions.json:

python measurements/2026-12-07/intel-host/summarise.py measurements/2026-12-07/intel-host
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

LABEL = {"cpus=1": "1 core", "cpus=null": "all (2)"}


def cell(series: dict) -> str:
    decision = series["decision"]
    names = {"a_faster": f"**{series['a']} faster**", "b_faster": f"**{series['b']} faster**"}
    shown = names.get(decision["outcome"], decision["outcome"])
    low, high = decision["ratio_low"], decision["ratio_high"]
    return f"{shown} {decision['ratio']:.3f} [{low:.3f}, {high:.3f}]"


def main(folder: str) -> None:
    print("| run | 1 core | units | all (2) | units |")
    print("|---|---|---|---|---|")
    for path in sorted(Path(folder).glob("decisions-compare-*.json")):
        series = {s["series"]: s for s in json.loads(path.read_text())["series"]}
        run = path.stem.rsplit("-", 1)[1]
        cells = [
            f"{cell(series[k])} | {series[k]['decision']['pairs']}" for k in LABEL if k in series
        ]
        print(f"| {run} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv[1])
