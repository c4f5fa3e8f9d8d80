"""The machine alone, no framework: fixed kernels timed on every core at once (`probe`), and
fresh processes' memory placement (`placement`). Run through `python -m benchmarks.speed_states
probe|placement`; the fast and slow states are defined in `benchmarks/speed_states.py`.
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.speed_levels import fast_level, slow_windows
from twinbench import stats
from twinbench.machine import cpu

# ------------------------------------------------------------------------------- the probe

KERNELS = ("spin", "stream", "gemm")  # the core alone; memory bandwidth; the vector units


def _kernel(name: str):
    """A fixed piece of work of each kind, made once, run many times."""
    if name == "spin":  # pure Python integers: the core alone, all in the first-level cache

        def spin(n: int) -> None:
            x = 1
            for _ in range(n):
                x = (x * 1103515245 + 12345) & 0xFFFFFFFF

        return spin
    import numpy as np

    if name == "stream":  # 64 MiB copies: main-memory bandwidth, shared with the host's tenants
        a, b = np.ones(1 << 24, np.float32), np.empty(1 << 24, np.float32)

        def stream(n: int) -> None:
            for _ in range(n):
                np.copyto(b, a)

        return stream
    a = np.ones((384, 384), np.float32)  # in the second-level cache: the vector units

    def gemm(n: int) -> None:
        for _ in range(n):
            a @ a

    return gemm


def _calibrate(work, chunk_s: float) -> int:
    """Repetitions for a chunk of about `chunk_s`, from the fastest of five timings."""
    n = 1
    while True:
        t = time.perf_counter()
        work(n)
        if time.perf_counter() - t > chunk_s / 4:
            break
        n *= 2
    fastest = min(_timed(work, n) for _ in range(5))
    return max(1, round(n * chunk_s / fastest))


def _timed(work, n: int) -> float:
    t = time.perf_counter()
    work(n)
    return time.perf_counter() - t


def _probe_core(core: int, seconds: float, chunk_s: float, queue: Any) -> None:
    os.sched_setaffinity(0, {core})
    work = {k: _kernel(k) for k in KERNELS}
    reps = {k: _calibrate(work[k], chunk_s) for k in KERNELS}
    start, stamps = time.perf_counter(), {k: [] for k in KERNELS}
    while time.perf_counter() - start < seconds:
        for k in KERNELS:  # in turn, so every kernel sees every second
            t = time.perf_counter()
            work[k](reps[k])
            stamps[k].append((t - start, time.perf_counter() - t))
    queue.put((core, stamps))


def on_every_core(target: Any, args: tuple, cores: Sequence[int], timeout: float) -> dict:
    """Run `target(core, *args, queue)` in a fresh process per core, all at once; what each put.

    Each process starts from a clean interpreter (spawn) with one BLAS thread."""
    os.environ.update(
        {v: "1" for v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")}
    )
    ctx = mp.get_context("spawn")
    queue = ctx.Queue()
    workers = [ctx.Process(target=target, args=(c, *args, queue), daemon=True) for c in cores]
    try:
        for w in workers:
            w.start()
        out = dict(queue.get(timeout=timeout) for _ in workers)
        for w in workers:
            w.join(timeout=10)
        return out
    finally:  # no process outlives the command (Ctrl-C, a timeout)
        for w in workers:
            if w.is_alive():
                w.terminate()


def probe(seconds: float, chunk_ms: float, cores: Sequence[int]) -> dict[int, dict[str, list]]:
    """(start s, duration s) of every chunk, per core and kernel, all cores at once."""
    return on_every_core(_probe_core, (seconds, chunk_ms / 1000), cores, seconds + 120)


def per_second(stamps: Sequence[tuple[float, float]]) -> list[float]:
    """Median chunk duration in each whole second of the probe."""
    buckets: dict[int, list[float]] = {}
    for t, d in stamps:
        buckets.setdefault(int(t), []).append(d)
    return [statistics.median(buckets[s]) for s in sorted(buckets)]


def steal_jiffies() -> int | None:
    try:
        return int(Path("/proc/stat").read_text().split()[8])
    except (OSError, IndexError, ValueError):
        return None


def run_probe(args: argparse.Namespace) -> dict[str, Any]:
    cores = sorted(cpu.allowed_cpus())
    steal0 = steal_jiffies()
    raw = probe(args.seconds, args.chunk_ms, cores)
    steal1 = steal_jiffies()
    result: dict[str, Any] = {"cores": {}, "steal_jiffies": None}
    if steal0 is not None and steal1 is not None:
        result["steal_jiffies"] = steal1 - steal0
    series = {(c, k): per_second(raw[c][k]) for c in cores for k in KERNELS}
    levels = {key: fast_level(v) for key, v in series.items()}
    slow = {key: slow_windows(v, args.threshold) for key, v in series.items()}
    print(
        f"per second, each kernel's median chunk over its fast level (* slow: > "
        f"{1 + args.threshold:g}); kernels {', '.join(KERNELS)}"
    )
    for s in range(min(len(v) for v in series.values())):
        cells = [
            f"cpu{c} "
            + " ".join(
                f"{series[c, k][s] / levels[c, k]:4.2f}{'*' if slow[c, k][s] else ' '}"
                for k in KERNELS
            )
            for c in cores
        ]
        print(f"  {s:4d} s  " + "   ".join(cells))
    for c in cores:
        result["cores"][c] = {}
        for k in KERNELS:
            flags = slow[c, k]
            changes = sum(flags[i] != flags[i - 1] for i in range(1, len(flags)))
            result["cores"][c][k] = {
                "fast_level_s": levels[c, k],
                "per_second_s": series[c, k],
                "slow_share": sum(flags) / len(flags),
                "state_changes": changes,
            }
            print(
                f"cpu{c} {k:<6}: {levels[c, k] * 1e3:6.2f} ms a chunk at the fast level; slow "
                f"in {sum(flags)} of {len(flags)} s, {changes} changes of state"
            )
    if result["steal_jiffies"] is not None:
        print(f"steal time the guest saw meanwhile: {result['steal_jiffies']} jiffies")
    return result


# -------------------------------------------------------------- memory placement, per process

MNIST_ROW = 784  # float32 pixels per image: the gathers below are mlp's batch gathers


def anon_huge_mib() -> float | None:
    """Anonymous memory of this process in transparent huge pages (None: no smaps_rollup)."""
    try:
        for line in Path("/proc/self/smaps_rollup").read_text().splitlines():
            if line.startswith("AnonHugePages:"):
                return int(line.split()[1]) / 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def _placement_core(
    core: int, seconds: float, mib: int, batch: int, gathers: int, queue: Any
) -> None:
    """One fresh process: place a training-sized array, then time random batch gathers."""
    os.sched_setaffinity(0, {core})
    import numpy as np

    rows = mib * 2**20 // (MNIST_ROW * 4)
    data = np.ones((rows, MNIST_ROW), np.float32)  # every page touched, so placed, here
    huge = anon_huge_mib()
    batches = np.random.default_rng(core).integers(0, rows, (256, batch))
    # per-second twin ratios assume both processes start together: the wall clock checks it
    stamps, i, started, start = [], 0, time.time(), time.perf_counter()
    while time.perf_counter() - start < seconds:
        t = time.perf_counter()
        for _ in range(gathers):
            data[batches[i % 256]]
            i += 1
        stamps.append((t - start, time.perf_counter() - t))
    queue.put((core, {"huge_mib": huge, "started": started, "stamps": stamps}))


def twin_ratios(a: Sequence[tuple[float, float]], b: Sequence[tuple[float, float]]) -> list[float]:
    """Second by second, b's median chunk over a's: what is left when both see the same second."""
    sa, sb = per_second(a), per_second(b)
    return [y / x for x, y in zip(sa, sb, strict=False)]


def run_placement(args: argparse.Namespace) -> dict[str, Any]:
    cores = sorted(cpu.allowed_cpus())[:2]
    if len(cores) < 2:
        raise SystemExit("placement compares two processes running at once: it needs 2 cores")
    print(
        f"{args.rounds} rounds of two fresh processes at once (cpu{cores[0]}, cpu{cores[1]}), "
        f"each placing {args.mib} MiB and gathering random {args.batch}-row batches for "
        f"{args.seconds:g} s; median chunk of {args.gathers} gathers"
    )
    rounds = []
    for r in range(args.rounds):
        raw = on_every_core(
            _placement_core,
            (args.seconds, args.mib, args.batch, args.gathers),
            cores,
            args.seconds + 120,
        )
        a, b = (raw[c] for c in cores)
        level_a = statistics.median(d for _, d in a["stamps"])
        level_b = statistics.median(d for _, d in b["stamps"])
        inside = twin_ratios(a["stamps"], b["stamps"])
        q = statistics.quantiles(inside, n=10, method="inclusive") if len(inside) > 1 else inside
        rounds.append(
            {
                "chunk_s": [level_a, level_b],
                "huge_mib": [a["huge_mib"], b["huge_mib"]],
                "started_apart_s": abs(a["started"] - b["started"]),
                "twin_ratio_per_second": inside,
            }
        )
        huge = "/".join("n/a" if h is None else f"{h:.0f}" for h in rounds[-1]["huge_mib"])
        print(
            f"  round {r + 1:2d}: {level_a * 1e3:6.3f} ms vs {level_b * 1e3:6.3f} ms a chunk, "
            f"twin ratio {level_b / level_a:5.3f} (per second {q[0]:.3f}-{q[-1]:.3f}), "
            f"huge pages {huge} MiB"
        )
    between = sorted(x["chunk_s"][1] / x["chunk_s"][0] for x in rounds)
    seconds = [statistics.median(x["twin_ratio_per_second"]) for x in rounds]
    spread_inside = [
        max(x["twin_ratio_per_second"]) / min(x["twin_ratio_per_second"]) for x in rounds
    ]
    levels = sorted(lv for x in rounds for lv in x["chunk_s"])
    summary = {
        "twin_ratio_range": [between[0], between[-1]],
        "twin_ratio_inside_round_max_over_min_median": statistics.median(spread_inside),
        "process_level_range_s": [levels[0], levels[-1]],
        "process_level_modes": stats.modes(levels),
    }
    print(
        f"twin ratio across rounds: {between[0]:.3f}-{between[-1]:.3f} (the two processes of "
        f"a round see the same seconds, so a spread here is per process); inside a round, "
        f"second to second, max/min {summary['twin_ratio_inside_round_max_over_min_median']:.3f}"
        f" (median over rounds); medians of seconds {min(seconds):.3f}-{max(seconds):.3f}"
    )
    m = summary["process_level_modes"]
    verdict = "two groups" if m["multimodal"] else "one group"
    print(
        f"process levels {levels[0] * 1e3:.3f}-{levels[-1] * 1e3:.3f} ms: {verdict} "
        f"(gap test p={m['p_value']})"
    )
    return {"rounds": rounds, "summary": summary}
