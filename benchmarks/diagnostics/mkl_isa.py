"""Does torch's MKL run its AVX-512 SGEMM on this CPU, and can an MKL setting make it?

On an AMD CPU with AVX-512 (Zen 4 and 5) oneDNN dispatches its AVX-512 kernels by CPUID
features, while MKL chooses its code path by vendor. This times torch's float32 GEMM (MKL SGEMM)
on one pinned core, each setting of `MKL_ENABLE_INSTRUCTIONS` in its own fresh process (MKL reads
it once, at its first call), and prints MKL's own banner. A setting that changed the kernel would
change the GFLOP/s; the variable only caps the ISA MKL may pick, so on a CPU whose vendor MKL
does not trust with AVX-512 every setting gives the same figure.

    python -m benchmarks.diagnostics.mkl_isa [--size 2048] [--repeats 10] [--core 0]

docs/findings/2026-12-02-new-host-verdict-flips.md used it.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys

SETTINGS = ("", "AVX512", "AVX2")  # "": MKL's own choice

# The child: one thread, a warm-up product (MKL's dispatch and buffers), then the best of
# `repeats` timed products; MKL's verbose mode is on for the warm-up only, to read its banner.
CHILD = """
import json, os, sys, time
size, repeats = int(sys.argv[1]), int(sys.argv[2])
import torch
torch.set_num_threads(1)
a, b = torch.randn(size, size), torch.randn(size, size)
with torch.backends.mkl.verbose(torch.backends.mkl.VERBOSE_ON):
    a @ b
sys.stdout.flush()
best = 0.0
for _ in range(repeats):
    t0 = time.perf_counter_ns(); a @ b
    best = max(best, 2 * size**3 / max(time.perf_counter_ns() - t0, 1))
seen = os.environ.get("MKL_ENABLE_INSTRUCTIONS", "")
print(json.dumps({"gflops": best, "setting": seen, "cores": sorted(os.sched_getaffinity(0))}))
"""


def measure(setting: str, size: int, repeats: int, core: int) -> dict[str, object]:
    """One fresh process under MKL_ENABLE_INSTRUCTIONS=`setting` ("" = unset)."""
    env = {k: v for k, v in os.environ.items() if k != "MKL_ENABLE_INSTRUCTIONS"}
    if setting:
        env["MKL_ENABLE_INSTRUCTIONS"] = setting
    env.update(OMP_NUM_THREADS="1", MKL_NUM_THREADS="1")
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(size), str(repeats)],
        env=env, capture_output=True, text=True, check=True,
        preexec_fn=lambda: os.sched_setaffinity(0, {core}),
    )  # fmt: skip
    lines = done.stdout.splitlines()
    banner = next((ln for ln in lines if "oneMKL" in ln or "Intel(R) MKL" in ln), "")
    result = json.loads(lines[-1])
    return {
        "setting": result["setting"] or "(unset)",  # as the child saw it
        "cores": result["cores"],
        "gflops": result["gflops"],
        "banner": banner.strip(),
    }


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--size", type=int, default=2048)
    p.add_argument("--repeats", type=int, default=10)
    p.add_argument("--core", type=int, default=min(os.sched_getaffinity(0)))
    args = p.parse_args(argv)
    rows = [measure(s, args.size, args.repeats, args.core) for s in SETTINGS]
    print(f"torch float32 GEMM {args.size}^2, core {args.core}, 1 thread, best of {args.repeats}:")
    for row in rows:
        print(f"  MKL_ENABLE_INSTRUCTIONS={row['setting']:<8} {row['gflops']:7.1f} GFLOP/s")
    print(f"MKL says: {rows[0]['banner'] or '(no banner: MKL_VERBOSE printed nothing)'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
