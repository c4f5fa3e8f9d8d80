"""The bfloat16-units matrix as markdown (python measurements/2026-12-03/bf16-units/tables.py
<sweep root>): per workload and backend the float32 and bfloat16 steady steps, the step's
speed-up beside the framework's own GEMM speed-up on the same cores, the kernels the probe saw,
and where a profile exists the layers that took the bfloat16 step's time."""

import json
import sys
from pathlib import Path


def records(root: Path) -> dict[tuple[str, str, str], dict]:
    found = {}
    for path in sorted(root.rglob("result.json")):
        r = json.loads(path.read_text())
        found[(r["model"], r["backend"], r["settings"]["precision"]["precision"])] = r
    return found


def steady(r: dict) -> float | None:
    s = (r.get("timing") or {}).get("steady_step_s")
    return s["median"] if s else None


def gemm(r: dict) -> tuple[float | None, int | None]:
    peak = r.get("machine_peak") or {}
    return (r.get("flops") or {}).get("framework_gemm_gflops"), (peak.get("probe") or {}).get(
        "size"
    )


def kernels(r: dict) -> str:
    k = r.get("kernels") or {}
    bf16 = k.get("bf16") or {}
    ops = bf16.get("per_op") or {}
    impls = sorted({impl for op in ops.values() for impl in op["implementations"]})
    mkl = ", ".join(
        f"{n} x{c}" for n, c in sorted(((k.get("mkl") or {}).get("calls") or {}).items())
    )
    isa = (k.get("onednn") or {}).get("isa")
    parts = [", ".join(impls), f"MKL {mkl}" if mkl else "", f"oneDNN ISA {isa}" if isa else ""]
    text = "; ".join(filter(None, parts))
    return text or "no MKL or oneDNN product logged"


def profile_shift(fp32: dict, bf16: dict, top: int = 3) -> str:
    a, b = fp32.get("profile"), bf16.get("profile")
    if not a or not b:
        return ""
    rows = {k: b["ops_ms"].get(k, 0.0) - a["ops_ms"].get(k, 0.0) for k in a["ops_ms"] | b["ops_ms"]}
    rows["host (not in ops)"] = b["host_other_ms"] - a["host_other_ms"]
    biggest = sorted(rows.items(), key=lambda kv: -abs(kv[1]))[:top]
    wall = b["wall_ms"] - a["wall_ms"]
    return f"wall {wall:+.1f} ms: " + ", ".join(f"{k} {v:+.1f}" for k, v in biggest)


def main(root: Path) -> None:
    found = records(root)
    print(
        "| workload | backend | fp32 step (ms) | bf16 step (ms) | step speed-up | GEMM fp32 / bf16 "
        "(GFLOP/s) | GEMM speed-up | bf16 units ran | bf16 kernels (probe) | loss bf16 - fp32 |"
    )
    print("|---|---|---:|---:|---:|---|---:|---|---|---:|")
    shifts = []
    for (workload, backend, precision), bf16 in sorted(found.items()):
        fp32 = found.get((workload, backend, "float32"))
        if precision != "bfloat16" or fp32 is None:
            continue
        if bf16["status"] != "ok" or fp32["status"] != "ok":
            print(f"| {workload} | {backend} | {fp32['status']} | {bf16['status']} | | | | | | |")
            continue
        s32, s16 = steady(fp32), steady(bf16)
        (g32, n32), (g16, n16) = gemm(fp32), gemm(bf16)
        gemm_up = f"{g16 / g32:.2f}x" if g32 and g16 and n32 == n16 else "-"
        ran = ((bf16.get("kernels") or {}).get("bf16") or {}).get("bf16_units_ran")
        loss = bf16["history"]["loss"][-1] - fp32["history"]["loss"][-1]
        g = f"{g32:.0f} / {g16:.0f}" if g32 and g16 else "-"
        print(
            f"| {workload} | {backend} | {s32 * 1e3:.1f} | {s16 * 1e3:.1f} | {s32 / s16:.2f}x | "
            f"{g} | {gemm_up} | {ran} | {kernels(bf16)} | {loss:+.4f} |"
        )
        if shift := profile_shift(fp32, bf16):
            shifts.append(f"| {workload} | {backend} | {shift} |")
    if shifts:
        print(
            "\nPer-layer profile, bfloat16 minus float32, ms of op time per step (largest three):\n"
        )
        print("| workload | backend | where the bfloat16 step's time moved |")
        print("|---|---|---|")
        print("\n".join(shifts))


if __name__ == "__main__":
    main(Path(sys.argv[1]))
