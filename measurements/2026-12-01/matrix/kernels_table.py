"""The matrix's kernel evidence as a markdown table, one row per run (python
measurements/2026-12-01/matrix/kernels_table.py <sweep dir>)."""

import json
import sys
from pathlib import Path

FLAGS = {
    "; FLAG: bfloat16 run without bfloat16 units: its products were converted around float32 "
    "kernels (no bfloat16-ISA kernel logged)": " (FLAG: converted around float32 kernels)",
}
rows = []
for f in sorted(Path(sys.argv[1]).glob("*/result.json")):
    r = json.loads(f.read_text())
    kv = dict(p.split("=", 1) for p in f.parent.name.split(","))
    k = r.get("kernels") or {}
    if r["status"] != "ok":
        s = "run failed: " + str(r.get("error", ""))[:90]
    else:
        s = k.get("summary") or "(no probe)"
    for long, short in FLAGS.items():
        s = s.replace(long, short)
    ran = (k.get("bf16") or {}).get("bf16_units_ran") if kv["precision"] == "bfloat16" else None
    rows.append((kv["model"], kv["backend"], kv["precision"], kv["exec"], s, ran))
HEADER = "workload | backend | precision | exec | kernels the probe logged (3 steps) | bf16 ran"
print(f"| {HEADER} |")
print("|---|---|---|---|---|---|")
for row in sorted(rows):
    print("| " + " | ".join("" if v is None else str(v) for v in row) + " |")
