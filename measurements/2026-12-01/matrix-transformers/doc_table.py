"""The findings page's table from the report's precision_exec.csv: per workload and backend the
steady step (ms) of each precision and exec cell, the compile cost (compiled first step over
the steady one, s), break-even steps and the loss against float32. A cell in failed_runs.csv
reads "failed" (its error says why), one in neither file "not run". From the repository root,
with the report's tables/precision_exec.csv and tables/failed_runs.csv:

    python measurements/2026-12-01/matrix-transformers/doc_table.py EXEC_CSV FAILED_CSV
"""

import math
import sys

import pandas as pd

t = pd.read_csv(sys.argv[1])
cells = {(r.workload, r.backend, r.precision, r.exec_mode): r for r in t.itertuples()}
f = pd.read_csv(sys.argv[2])
failed = {(r.workload, r.backend, r.precision, r.exec_mode) for r in f.itertuples()}
BACKENDS = ("torch", "tensorflow", "keras_torch", "keras_jax")


def step(c, key):
    if c is None:
        return "failed" if key in failed else "not run"
    return f"{c.steady_step_s * 1000:.0f}"


def cost(c):
    return "" if c is None else f"{c.first_step_over_steady_s:.1f}"


def even(c):
    if c is None or pd.isna(c.break_even_steps):
        return ""
    return "never" if math.isinf(c.break_even_steps) else f"{c.break_even_steps:.0f}"


def dloss(c):
    return "" if c is None or pd.isna(c.loss_minus_fp32) else f"{c.loss_minus_fp32:+.4f}"


print(
    "| workload | backend | fp32 eager | fp32 compiled | bf16 eager | bf16 compiled "
    "| compile cost fp32 / bf16 (s) | break-even fp32 / bf16 (steps) "
    "| loss − fp32, bf16 eager / compiled |"
)
print("|---|---|---:|---:|---:|---:|---|---|---|")
for w in sorted(t.workload.unique()):
    for b in BACKENDS:
        keys = [(w, b, p, e) for p in ("float32", "bfloat16") for e in ("eager", "compiled")]
        s = {k[2:]: step(cells.get(k), k) for k in keys}
        g = {
            (p, e): cells.get((w, b, p, e))
            for p in ("float32", "bfloat16")
            for e in ("eager", "compiled")
        }
        fc, bc = g["float32", "compiled"], g["bfloat16", "compiled"]
        print(
            f"| {w} | {b} | {s['float32', 'eager']} | {s['float32', 'compiled']} | "
            f"{s['bfloat16', 'eager']} | {s['bfloat16', 'compiled']} | {cost(fc)} / {cost(bc)} | "
            f"{even(fc)} / {even(bc)} | {dloss(g['bfloat16', 'eager'])} / {dloss(bc)} |"
        )
