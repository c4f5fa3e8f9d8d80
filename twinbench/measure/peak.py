"""One machine peak per machine and core count: the best float32 GEMM any library here achieves.

Why one peak: each framework's own matmul is a kernel library (torch: MKL or OpenBLAS sgemm;
TensorFlow: oneDNN or Eigen), and they differ by 2x on the same cores. Dividing each
framework's throughput by its own matmul hides that gap; dividing both by the best GEMM the
machine can do shows it, and each library's GEMM beside the peak is the kernel-library effect.

How: every library is timed in its own short process (never torch and TensorFlow in one
interpreter, never inside a measured run's timed steps), with the caller's affinity and thread
variables. Each probe warms up, then times `repeats` repeats of enough GEMMs to last
`min_repeat_s`, and reports the MEDIAN rate: a best-of picks the luckiest repeat and can exceed
what the hardware sustains. The result is cached per machine fingerprint and core count, so runs
and tests after the first reuse it.

Where the ISA and clock can be read, the probe is checked against cores x clock x FLOPs per
cycle (two FMA units of the widest vector ISA): a probe above that limit is flagged.

A probe must have its cores to itself. Two workers that start at once (a resident or fresh pair
in turns) would probe side by side: the second waits on a lock beside the cache and then reads
what the first measured. Each probe also measures the share of its cores that nothing else used
over the timed repeats (the cores' busy time from /proc/stat, less the probe's own CPU time); a
probe that had less than `min_share` of them shared them with something else, and its peak
serves the run that measured it but is never cached. On
2026-12-06 README command 1, on a machine with no cache, cached 50 GFLOP/s on 1 core of the
Zen 5 and 89 on 2, where the quiet probe gives 111 and 205: every fraction of peak after it
read double.

Usage (the worker calls `machine_peak`): python -m twinbench.measure.peak probe <library> <size>
<repeats>
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from frameworks import probes

# The neutral BLAS and every runtime the registry names (frameworks/probes): not a fixed pair.
LIBRARIES = probes.libraries()
# 2 (2026-12-06): probes measure their share of the cores; peaks cached before may be halved
CACHE_VERSION = 2
MIN_CORE_SHARE = 0.9  # conf measure.peak_probe_min_share: quiet probes have 0.99-1.0 here
# fp32 FLOPs per cycle per core: 2 FMA units x lanes x 2 (multiply and add).
FLOPS_PER_CYCLE = (("avx512f", 2 * 16 * 2), ("fma", 2 * 8 * 2), ("avx", 8 + 8), ("sse2", 4 + 4))


# ------------------------------------------------------------------ one library, in its process


def _gemm(library: str, size: int, precision: str = "float32") -> tuple[Callable[[], Any], str]:
    """A callable doing one size x size GEMM (float32, or bfloat16 inputs) to completion, and the
    kernel it uses (the library's own code is in frameworks/probes/<library>.py)."""
    return probes.gemm(library, size, precision)


def cores_busy_ns(cores: set[int], stat: Path = Path("/proc/stat")) -> int | None:
    """The busy time of `cores` since boot, every process's (user, nice, system, irq, softirq,
    and steal: a hypervisor's time on the vCPU is time the probe lost too); None where the
    kernel's table cannot be read."""
    try:
        lines = stat.read_text().splitlines()
    except OSError:
        return None
    tick_ns = 1e9 / os.sysconf("SC_CLK_TCK")
    busy = 0
    for line in lines:
        name, *fields = line.split()
        if name.startswith("cpu") and name[3:].isdigit() and int(name[3:]) in cores:
            user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, fields[:8])
            busy += user + nice + system + irq + softirq + steal
    return round(busy * tick_ns)


def median_rate(
    op: Callable[[], Any],
    flop: float,
    repeats: int,
    min_repeat_s: float,
    clock: Callable[[], int] = time.perf_counter_ns,
    cpu_clock: Callable[[], int] = time.process_time_ns,
    busy_clock: Callable[[], int | None] | None = None,
    cores: int | None = None,
) -> dict[str, Any]:
    """Median GFLOP/s over `repeats` timed repeats of `inner` calls each (inner chosen from one
    warm-up call so a repeat lasts about `min_repeat_s`), and the share of its cores (default:
    this process' affinity) that nothing else used over the timed repeats: their busy time
    (`busy_clock`, default /proc/stat) less this process's own CPU time is other work's. A
    kernel that uses fewer threads than cores is not sharing them; only others' time counts."""
    affinity = os.sched_getaffinity(0)
    cores = cores or len(affinity)
    busy_clock = busy_clock or (lambda: cores_busy_ns(affinity))
    op()  # warm-up: thread-pool start, kernel selection, page faults
    t0 = clock()
    op()
    one = max(clock() - t0, 1)
    inner = max(1, round(min_repeat_s * 1e9 / one))
    rates = []
    wall0, cpu0, busy0 = clock(), cpu_clock(), busy_clock()
    for _ in range(repeats):
        t0 = clock()
        for _ in range(inner):
            op()
        rates.append(inner * flop / max(clock() - t0, 1))  # flop per ns = GFLOP/s
    wall, cpu, busy1 = max(clock() - wall0, 1), cpu_clock() - cpu0, busy_clock()
    others = None if busy0 is None or busy1 is None else max(0, busy1 - busy0 - cpu)
    return {
        "gflops": statistics.median(rates),
        "samples_gflops": rates,
        "inner": inner,
        "spread": (max(rates) - min(rates)) / statistics.median(rates),
        # 1: the cores were the probe's alone; None: the kernel's table was not readable
        "core_share": None if others is None else 1.0 - min(1.0, others / (wall * cores)),
    }


def probe(
    library: str, size: int, repeats: int, min_repeat_s: float, precision: str = "float32"
) -> dict[str, Any]:
    op, kernel = _gemm(library, size, precision)
    about = {"library": library, "kernel": kernel, "size": size, "repeats": repeats}
    if precision != "float32":
        about["precision"] = precision
    return about | median_rate(op, 2.0 * size**3, repeats, min_repeat_s)


# ------------------------------------------------------------------ the machine limit


def isa_limit(cores: int, flags: set[str], mhz: float | None) -> dict[str, Any]:
    """cores x clock x fp32 FLOPs per cycle, or why it cannot be given."""
    per_cycle = next((n for flag, n in FLOPS_PER_CYCLE if flag in flags), None)
    if per_cycle is None or not mhz:
        return {"gflops": None, "why_not": "ISA or clock not readable"}
    return {"gflops": cores * mhz / 1e3 * per_cycle, "flops_per_cycle": per_cycle, "mhz": mhz}


def read_clock_mhz() -> tuple[float | None, str]:
    """The highest clock this OS states: cpufreq's maximum, else /proc/cpuinfo's current MHz
    (a VM often shows the base clock there; turbo may exceed it)."""
    maxima = []
    for path in Path("/sys/devices/system/cpu").glob("cpu[0-9]*/cpufreq/cpuinfo_max_freq"):
        with contextlib.suppress(OSError, ValueError):
            maxima.append(int(path.read_text()) / 1e3)
    if maxima:
        return max(maxima), "cpufreq cpuinfo_max_freq"
    try:
        found = re.findall(r"^cpu MHz\s*:\s*([\d.]+)", Path("/proc/cpuinfo").read_text(), re.M)
    except OSError:
        found = []
    if found:
        return max(float(v) for v in found), "/proc/cpuinfo cpu MHz (current; turbo may exceed it)"
    return None, "not readable"


def _cpu_flags() -> set[str]:
    from twinbench.machine import environment

    return environment.cpu_flags()


# ------------------------------------------------------------------ the machine peak, cached


def _cache_file(cache_dir: Path, fingerprint: str, cores: int, precision: str = "float32") -> Path:
    name = re.sub(r"[^A-Za-z0-9]+", "_", fingerprint).strip("_").lower()
    suffix = "" if precision == "float32" else f"-{precision}"  # float32 caches stay valid
    return Path(cache_dir) / f"{name}-cpus{cores}{suffix}.json"


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "twinbench" / "peak"


def _run_probe(
    library: str,
    size: int,
    repeats: int,
    min_repeat_s: float,
    cores: int,
    precision: str = "float32",
) -> dict[str, Any]:
    """One library's probe in a fresh interpreter with this process' affinity (inherited) and
    one thread per core."""
    from twinbench.launch import lifeline
    from twinbench.machine import cpu

    # A probe is the worker's child: it must die with the worker (kill -9 of run.py reaches the
    # worker through its parent-death signal, and the probe through its own).
    env = lifeline.child_env({**os.environ, **cpu.thread_environment(cores, cores)})
    env.pop("TF_ENABLE_ONEDNN_OPTS", None)  # each library as installed: its default kernels
    proc = subprocess.run(
        [sys.executable, "-m", "twinbench.measure.peak", "probe", library, str(size), str(repeats),
         str(min_repeat_s), precision],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    if proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
        return {"library": library, "gflops": None, "error": tail[0]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


@contextlib.contextmanager
def probe_lock(cache_dir: Path):
    """One probe at a time on this machine (a lock file beside the cached peaks): a probe beside
    another measures its cores shared. Held while probing only; a cache hit never waits."""
    import fcntl

    cache_dir.mkdir(parents=True, exist_ok=True)
    with open(cache_dir / ".probe.lock", "a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def read_cache(path: Path, want: dict[str, Any]) -> dict[str, Any] | None:
    """The probe record cached at `path` if it was measured with the settings in `want`
    (marked `cached`), else None: a changed probe setting means measuring again."""
    try:
        cached = json.loads(path.read_text())
        if {k: cached.get("probe", {}).get(k) for k in want} == want:
            return cached | {"cached": True, "cache_file": str(path)}
    except (OSError, ValueError):
        pass
    return None


def machine_peak(
    fingerprint: str,
    cores: int,
    *,
    size: int = 2048,
    repeats: int = 7,
    min_repeat_s: float = 0.2,
    cache_dir: Path | None = None,
    libraries: tuple[str, ...] = LIBRARIES,
    run_probe: Callable[..., dict[str, Any]] = _run_probe,
    say: Callable[[str], None] | None = None,
    precision: str = "float32",
    min_share: float = MIN_CORE_SHARE,
) -> dict[str, Any]:
    """The machine's GEMM peak on `cores` cores (this process' affinity), from the cache or
    measured now: every installed library's median GEMM rate, the best one, the ISA limit.
    `say` hears which library is being probed (each is a fresh process: seconds each).
    precision="bfloat16" times bfloat16 GEMMs instead, in the libraries that have one (not
    numpy), cached apart: a bfloat16 run's fraction of peak is then against bfloat16's peak.
    Measured under probe_lock; not cached where a library's probe had less than `min_share` of
    its cores (`shared_cores` names them)."""
    cache_dir = Path(cache_dir or default_cache_dir())
    path = _cache_file(cache_dir, fingerprint, cores, precision)
    want = {"version": CACHE_VERSION, "size": size, "repeats": repeats, "libraries": [*libraries]}
    extra: dict[str, Any] = {}
    if precision != "float32":
        libraries = tuple(lib for lib in libraries if lib not in probes.NEUTRAL)
        want |= {"precision": precision, "libraries": [*libraries]}
        extra = {"precision": precision}
    cached = read_cache(path, want)
    if cached is not None:
        return cached
    with probe_lock(cache_dir):
        # a probe that held the lock while this one waited may have measured it
        cached = read_cache(path, want)
        if cached is not None:
            return cached
        return _measure(
            path, want, min_repeat_s, fingerprint, cores, libraries, min_share, run_probe, say,
            extra,
        )  # fmt: skip


def _measure(
    path: Path,
    want: dict[str, Any],
    min_repeat_s: float,
    fingerprint: str,
    cores: int,
    libraries: tuple[str, ...],
    min_share: float,
    run_probe: Callable[..., dict[str, Any]],
    say: Callable[[str], None] | None,
    extra: dict[str, Any],
) -> dict[str, Any]:
    """machine_peak's measurement, under its lock: every library's probe, then the record,
    written to the cache unless a probe shared its cores."""
    size, repeats = want["size"], want["repeats"]
    installed = [lib for lib in libraries if importlib.util.find_spec(lib) is not None]
    per_library = {}
    for i, lib in enumerate(installed, 1):
        if say is not None:
            say(f"measuring the GEMM peak on {cores} core(s): {lib} ({i}/{len(installed)})...")
        per_library[lib] = run_probe(lib, size, repeats, min_repeat_s, cores, **extra)
    rated = {k: v["gflops"] for k, v in per_library.items() if v.get("gflops")}
    best = max(rated, key=rated.get) if rated else None
    mhz, clock_source = read_clock_mhz()
    limit = isa_limit(cores, _cpu_flags(), mhz) | {"clock_source": clock_source}
    peak = rated[best] if best else None
    shared = {
        lib: v["core_share"]
        for lib, v in per_library.items()
        if v.get("core_share") is not None and v["core_share"] < min_share
    }
    record = {
        "probe": {**want, "min_repeat_s": min_repeat_s},
        "fingerprint": fingerprint,
        "cores": cores,
        "libraries": per_library,
        "machine_peak_gflops": peak,
        "best_library": best,
        "isa_limit": limit,
        "exceeds_isa_limit": bool(peak and limit.get("gflops") and peak > limit["gflops"]),
        "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_average": list(os.getloadavg()),
        # library -> its share of the cores, where below min_share: this peak is not cached
        "shared_cores": shared,
    }
    if shared:
        if say is not None:
            shares = ", ".join(f"{lib} {share:.0%}" for lib, share in shared.items())
            say(
                f"the GEMM probe shared its {cores} core(s) with other work ({shares} of them): "
                "its peak serves this run only and is not cached"
            )
        return record | {"cached": False, "cache_file": None}
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record, indent=1))
    os.replace(tmp, path)  # atomic: a concurrent reader sees the old file or the new one
    return record | {"cached": False, "cache_file": str(path)}


def framework_ceiling(machine: dict[str, Any], backend: str, achieved: float) -> dict[str, Any]:
    """A framework's own GEMM beside the machine peak (the kernel-library effect), and its
    throughput against that own ceiling."""
    own = (machine.get("libraries") or {}).get(backend) or {}
    gflops, peak = own.get("gflops"), machine.get("machine_peak_gflops")
    return {
        "framework_gemm_gflops": gflops,
        "framework_gemm_kernel": own.get("kernel"),
        "fraction_of_framework_gemm": achieved / gflops if gflops else None,
        # below 1: this framework's GEMM kernel reaches only this share of the machine's best
        "kernel_library_effect": gflops / peak if gflops and peak else None,
        "peak_library": machine.get("best_library"),
        # A model above the machine's GEMM peak means the cached peak is too low (measured
        # under load): delete the cache file (`cache_file`) and measure again.
        "achieved_above_peak": bool(peak and achieved > peak),
    }


def main(argv: list[str]) -> int:
    from twinbench.launch import lifeline

    lifeline.die_with_parent()  # first: a probe never outlives the worker that started it
    if len(argv) not in (6, 7) or argv[1] != "probe":
        print(
            "usage: python -m twinbench.measure.peak probe <library> <size> <repeats> "
            "<min_repeat_s> [float32|bfloat16]",
            file=sys.stderr,
        )
        return 2
    precision = argv[6] if len(argv) == 7 else "float32"
    print(json.dumps(probe(argv[2], int(argv[3]), int(argv[4]), float(argv[5]), precision)))
    return 0


if __name__ == "__main__":
    from twinbench.launch.lifeline import leave_without_teardown

    leave_without_teardown(main(sys.argv))  # its figure is printed: skip the library's teardown
