"""The allocator sweeps as one table: each sweep's decision (ratio default/retain, interval,
worker pairs, outcome) and, from its records, each side's median share of the training steps'
CPU time in the kernel, minor page faults per training step, mapped blocks after training and
peak resident memory. Usage: python summarise.py <sweep folder>...  (commands.sh's $out/*)"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path


def sides(folder: Path) -> dict[str, list[dict]]:
    found: dict[str, list[dict]] = {}
    for path in folder.rglob("result.json"):
        r = json.loads(path.read_text())
        if r.get("status") != "ok":
            continue
        u = r["resources"]
        steps = r["steps_per_epoch"] * len(r["epoch_times_s"])  # every step the epochs trained
        found.setdefault(r["settings"]["allocator"]["mode"], []).append(
            {
                "kernel": u["system_time_training_steps_s"] / u["cpu_time_training_steps_s"],
                "faults": u["minor_faults_training_steps"] / steps,
                "mapped": r["settings"]["allocator"]["mapped_blocks"],
                "rss": u["peak_rss_mib"],
            }
        )
    return found


def main(folders: list[str]) -> None:
    print(
        "| sweep | default / retain [interval] | worker pairs | outcome | kernel share default, "
        "retain | faults a step default, retain | peak RSS MiB default, retain |"
    )
    print("|---|---|---:|---|---|---|---|")
    for name in folders:
        folder = Path(name)
        body = json.loads((folder / "decisions.json").read_text())
        (series,) = body["series"]
        d = series["decision"]
        found = sides(folder)

        def pair(key: str, fmt: str, found: dict = found) -> str:
            def med(mode: str) -> str:
                values = [x[key] for x in found.get(mode, [])]
                return format(statistics.median(values), fmt) if values else "-"

            return f"{med('default')}, {med('retain')}"

        interval = (
            f"{d['ratio']:.3f} [{d['ratio_low']:.3f}, {d['ratio_high']:.3f}]"
            if d["ratio_high"] < float("inf")
            else f"{d['ratio']:.3f} (no interval)"
        )
        print(
            f"| {folder.name} | {interval} | {d['pairs']} | {d['outcome']} | "
            f"{pair('kernel', '.1%')} | {pair('faults', ',.0f')} | {pair('rss', '.0f')} |"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
