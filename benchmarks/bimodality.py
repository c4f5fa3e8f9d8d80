"""Where does the process-to-process bimodality come from? N fresh processes per environment.

    python -m benchmarks.bimodality [--processes 8] [--variants baseline thp_off ...]
        [--code outside|twinbench] [--backend tensorflow|torch] [--model mlp]
        [--epochs 4] [--max-steps S] [--cpus N] [--out bimodality.json] [--list]

Default: the outside Keras port of the 2017 mnist_mlp.py (benchmarks/ports/keras_mnist_mlp.py),
whose epochs were seen at 1.74-1.80 s in some processes and 2.08-2.64 s in others, same arrays,
same cores. Every variant (benchmarks/bimodality.yaml: transparent huge pages off for the
process, numpy's huge-page advice, malloc arenas and trimming, jemalloc/tcmalloc where a library
is present, one inter-op thread, passive OpenMP waiting) runs `--processes` fresh processes,
interleaved process by process (round i runs one process of every variant, the order rotating
each round), so a slow quarter of an hour reaches every variant alike.

Per process: the epochs after the first (steady; the first pays for tracing and cold caches),
their median, the CPU clock of its cores (/proc/cpuinfo MHz) before and after and the load
average before. Per variant: the process medians sorted and the *gap ratio*: the widest gap
between consecutive sorted process medians over the typical spread inside one process (the
median over processes of max - min of its steady epochs). Processes that each run steadily but
settle at one of two speeds give a gap ratio well above 1 (a 0.28 s gap between 1.80 s and
2.08 s processes whose own epochs vary by 0.05 s gives 5.6); one noisy population gives about 1
or less. Beside it, the
project's gap test (twinbench.stats.modes: the same widest gap against simulated normal
samples, a p-value; from 4 processes). A variant whose gap ratio falls to ~1 where the baseline's
is high names the cause; if none does, the machine is the suspect (the frequency columns and
load say whether it moved). Writes every figure to JSON with --out.
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from omegaconf import OmegaConf

from benchmarks import pairs
from twinbench import stats
from twinbench.config import inherited_env
from twinbench.machine import cpu

SETTINGS = OmegaConf.to_container(OmegaConf.load(Path(__file__).with_name("bimodality.yaml")))
VARIANTS: dict[str, dict[str, Any]] = SETTINGS["variants"]
THP_SYSTEM = Path("/sys/kernel/mm/transparent_hugepage/enabled")


@dataclass
class Process:
    variant: str
    epochs: list[float]
    wall_s: float
    cpu_s: float
    mhz_before: list[float] = field(default_factory=list)
    mhz_after: list[float] = field(default_factory=list)
    load_before: float | None = None

    @property
    def steady(self) -> list[float]:
        return self.epochs[1:]

    @property
    def median(self) -> float:
        return statistics.median(self.steady)


def core_mhz(cores: list[int]) -> list[float]:
    """The clock /proc/cpuinfo reports for `cores` now (a VM may show a fixed base clock)."""
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return []
    mhz, current = {}, None
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "processor":
            current = int(value)
        elif key.strip() == "cpu MHz" and current is not None:
            mhz[current] = float(value)
    return [mhz[c] for c in cores if c in mhz]


def thp_system() -> str | None:
    try:
        return THP_SYSTEM.read_text().strip()
    except OSError:
        return None


def preload_path(variant: dict[str, Any]) -> str | None:
    return next((p for p in variant.get("preload") or [] if Path(p).exists()), None)


def runnable(name: str, code: str = "outside") -> str | None:
    """Why variant `name` cannot run here on `code` (None: it can)."""
    v = VARIANTS[name]
    if v.get("preload") and preload_path(v) is None:
        return f"none of {', '.join(v['preload'])} exists (no library to preload)"
    refused = sorted(set(v.get("env") or {}) & set(inherited_env.REFUSED))
    if code == "twinbench" and refused:
        return (
            f"twinbench refuses {', '.join(refused)} from the environment (not in a run's identity)"
        )
    return None


def environment(variant: dict[str, Any]) -> dict[str, str]:
    env = {**os.environ, **{k: str(x) for k, x in (variant.get("env") or {}).items()}}
    lib = preload_path(variant)
    if lib:
        env["LD_PRELOAD"] = ":".join(filter(None, [lib, env.get("LD_PRELOAD")]))
    return env


def command(args: argparse.Namespace, variant: dict[str, Any]) -> list[str]:
    """The outside port's command line for this variant (twinbench runs through pairs)."""
    from benchmarks.outside import outside_cmd

    cmd = outside_cmd(args.backend, args.model, args.cpus, args.epochs, args.max_steps)
    if cmd is None:
        raise SystemExit(f"no outside script for {args.backend} {args.model}")
    cmd += [str(a) for a in variant.get("port_args") or []]
    return thp_prefix(variant) + cmd


def thp_prefix(variant: dict[str, Any]) -> list[str]:
    return [sys.executable, "-m", "benchmarks.thp_off"] if variant.get("thp_disable") else []


def measure(args: argparse.Namespace, name: str) -> Process:
    variant, cores = VARIANTS[name], cpu.choose_cores(args.cpus)
    before, load = core_mhz(cores), os.getloadavg()[0]
    start = time.perf_counter()
    if args.code == "twinbench":
        sample = pairs.twinbench(
            args.backend, args.model, args.cpus, args.epochs, args.max_steps,
            overrides=[str(o) for o in variant.get("twinbench_overrides") or []],
            env=environment(variant), prefix=thp_prefix(variant),
        )  # fmt: skip
        epochs, cpu_s = sample.epochs, sample.cpu_s
    else:
        out, cpu_s = pairs.json_line_process(command(args, variant), env=environment(variant))
        epochs = out["epoch_s"]
    wall = time.perf_counter() - start
    return Process(name, list(epochs), wall, cpu_s, before, core_mhz(cores), load)


def rounds(variants: list[str], processes: int) -> list[list[str]]:
    """Round i runs one process of every variant, the first rotating: a b c / b c a / ..."""
    return [variants[i % len(variants) :] + variants[: i % len(variants)] for i in range(processes)]


def gap_ratio(procs: list[Process]) -> dict[str, Any]:
    """The widest gap between sorted process medians over the median within-process range."""
    medians = sorted(p.median for p in procs)
    within = statistics.median(max(p.steady) - min(p.steady) for p in procs)
    gaps = [b - a for a, b in itertools.pairwise(medians)]
    widest = max(gaps, default=0.0)
    at = gaps.index(widest) + 1 if gaps else None
    ratio = widest / within if within > 0 else (float("inf") if widest > 0 else 0.0)
    return {
        "sorted_medians_s": medians,
        "widest_gap_s": widest,
        "below_gap": at,  # processes below the widest gap (the rest are above it)
        "within_process_range_s": within,
        "gap_ratio": ratio,
    }


def summary(procs: list[Process]) -> dict[str, Any]:
    out = gap_ratio(procs)
    medians = [p.median for p in procs]
    out["modes"] = stats.modes(medians) if len(medians) >= 4 else None
    out["median_s"] = statistics.median(medians)
    return out


def describe(name: str, s: dict[str, Any]) -> str:
    modes = s["modes"]
    test = (
        "gap test: too few processes"
        if not modes or modes["p_value"] is None
        else f"gap test p={modes['p_value']:.3f}" + (" TWO MODES" if modes["multimodal"] else "")
    )
    return (
        f"{name:<18} gap ratio {s['gap_ratio']:6.2f}  (widest gap {s['widest_gap_s']:.3f} s, "
        f"within-process range {s['within_process_range_s']:.3f} s)  {test}\n"
        f"{'':<18} process medians, sorted: " + " ".join(f"{m:.3f}" for m in s["sorted_medians_s"])
    )


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--processes", type=int, default=8, help="fresh processes per variant")
    p.add_argument("--variants", nargs="+", default=SETTINGS["default_variants"])
    p.add_argument("--code", choices=["outside", "twinbench"], default="outside")
    p.add_argument("--backend", choices=pairs.BACKENDS, default="tensorflow")
    p.add_argument("--model", default="mlp")
    p.add_argument("--epochs", type=int, default=4, help="per process; the first is left out")
    p.add_argument("--max-steps", type=int, default=None, help="cap per epoch (default: full)")
    p.add_argument("--cpus", type=int, default=len(cpu.allowed_cpus()))
    p.add_argument("--out", type=Path, help="write every process' figures to this JSON file")
    p.add_argument("--list", action="store_true", help="list the variants and exit")
    args = p.parse_args(argv)
    if args.list:
        for name, v in VARIANTS.items():
            why = runnable(name)
            print(f"{name:<18} {json.dumps(v)}" + (f"  [skipped here: {why}]" if why else ""))
        return 0
    unknown = [v for v in args.variants if v not in VARIANTS]
    if unknown:
        p.error(f"unknown variant(s) {', '.join(unknown)}; choose from: {', '.join(VARIANTS)}")
    if args.epochs < 3:
        p.error("--epochs must be at least 3: the first is left out and a range needs two")
    if args.processes < 2:
        p.error("--processes must be at least 2: a gap needs two process medians")
    variants = []
    for name in args.variants:
        why = runnable(name, args.code)
        print(f"variant {name}: skipped, {why}" if why else f"variant {name}: {VARIANTS[name]}")
        if not why:
            variants.append(name)
    plan = rounds(variants, args.processes)
    total = sum(map(len, plan))
    print(
        f"{args.code} {args.backend} {args.model}, cpus={args.cpus}, {args.epochs} epochs"
        + (f" of {args.max_steps} steps" if args.max_steps else "")
        + f"; {args.processes} processes x {len(variants)} variants = {total}, interleaved; "
        f"system THP: {thp_system()}; load {os.getloadavg()[0]:.2f}",
        flush=True,
    )
    by_variant: dict[str, list[Process]] = {v: [] for v in variants}
    started, done = time.perf_counter(), 0
    for i, order in enumerate(plan):
        for name in order:
            proc = measure(args, name)
            by_variant[name].append(proc)
            done += 1
            left = (time.perf_counter() - started) / done * (total - done)
            print(
                f"[{done}/{total}] round {i + 1} {name:<18} steady epochs "
                + " ".join(f"{e:.3f}" for e in proc.steady)
                + f"  median {proc.median:.3f} s  MHz {_mhz(proc.mhz_before)} -> "
                f"{_mhz(proc.mhz_after)}  load {proc.load_before:.2f}  ({proc.wall_s:.0f} s; "
                f"about {left / 60:.0f} min left)",
                flush=True,
            )
    print("\nper variant: process medians (s per steady epoch) and how far apart they fall")
    result = {
        "code": args.code, "backend": args.backend, "model": args.model, "cpus": args.cpus,
        "epochs": args.epochs, "max_steps": args.max_steps, "system_thp": thp_system(),
        "variants": {},
    }  # fmt: skip
    for name, procs in by_variant.items():
        s = summary(procs)
        print(describe(name, s))
        result["variants"][name] = {
            "settings": VARIANTS[name], **s, "processes": [vars(p) for p in procs],
        }  # fmt: skip
    if args.out:
        args.out.write_text(json.dumps(result, indent=2))
        print(f"written: {args.out}")
    return 0


def _mhz(values: list[float]) -> str:
    return "/".join(f"{v:.0f}" for v in values) or "n/a"


if __name__ == "__main__":
    raise SystemExit(main())
