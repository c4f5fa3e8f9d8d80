"""The noise floor: one configuration against itself in interleaved pairs (A/A calibration).

A and B are the same configuration, so every pair's time ratio would be 1 on a quiet, steady
machine; how far the log ratios spread is what this machine and workload add to any comparison
(placement on the cores, the neighbour's minute, which of two speed modes a process lands in).
From that spread the floor is the smallest margin a decision (twinbench.sequential) could
resolve within its pair budget: a comparison asked to decide at a finer margin can only end
undecided, so the deciding sweep warns before its first pair.

Cached like the machine's GEMM peak (twinbench/measure/peak.py): one file per machine
fingerprint, workload (model, epochs, steps) and core count, under $XDG_CACHE_HOME (or ~/.cache)
/twinbench/noise; `twinbench calibrate` measures it (again with --force).

Until an A/A calibration exists, a deciding comparison caches the spread of its own pairs
(`from_comparison`): with a constant effect, an A/B pair's log ratio is that effect plus the
same noise an A/A pair shows, so their spread estimates the floor (an effect that varies from
pair to pair adds to it: the estimate errs high, towards "harder to decide"). The line says which
kind of floor it is; a calibration replaces a comparison's floor, never the reverse.
"""

from __future__ import annotations

import json
import math
import os
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from frameworks import allocator
from twinbench.sequential import Design, half_widths

CACHE_VERSION = 1
COMPARISON = "comparison"  # a floor's `source` when it was read off an A/B comparison's pairs
MIN_PAIRS = 5  # a spread from fewer pairs is too uncertain to cache and warn on
MEASURES = {"wall": "steady step median", "cpu": "training CPU seconds"}


def default_cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "twinbench" / "noise"


def workload_key(
    model: str,
    epochs: Any,
    max_steps: Any,
    cores: int,
    pairing: str = "sequential",
    malloc: str | None = allocator.DEFAULT,
) -> str:
    """What the floor depends on besides the machine: the work per run, its cores, how a pair's
    runs share the machine (pairs that take turns have a floor of their own), and glibc's
    allocator (backend.allocator): under `retain` a torch unit spread 0.018 where the default's
    spread 0.104 (docs/findings/2026-12-07-bare-loop-allocator.md), so one floor cannot stand for
    both. The default's keys are the ones floors were always cached under."""
    key = f"{model}-e{epochs}-s{max_steps}-cpus{cores}"
    key = key if pairing == "sequential" else f"{key}-{pairing}"
    return key if malloc in (None, allocator.DEFAULT) else f"{key}-malloc-{malloc}"


def cache_file(cache_dir: Path, fingerprint: str, workload: str) -> Path:
    name = re.sub(r"[^A-Za-z0-9]+", "_", f"{fingerprint}-{workload}").strip("_").lower()
    return Path(cache_dir) / f"{name}.json"


def floor_margin(log_ratio_sd: float, pairs: int, design: Design) -> float | None:
    """The margin the design's confidence sequence resolves after `pairs` pairs whose log ratios
    spread by `log_ratio_sd` (None: it is still the whole line at that many pairs)."""
    ss = (pairs - 1) * log_ratio_sd**2
    n, spread = np.array([float(pairs)]), np.array([ss])
    h = float(half_widths(n, spread, design.alpha, design.prior_precision)[0])
    return math.expm1(h) if math.isfinite(h) else None


def summarise(
    pairs: list[tuple[dict[str, float], dict[str, float]]], design: Design
) -> dict[str, Any]:
    """Per measure: every ratio, the log ratios' spread and the floor at the pair budget."""
    ratios = {m: [a[m] / b[m] for a, b in pairs if a.get(m) and b.get(m)] for m in MEASURES}
    return summarise_ratios(ratios, design)


def summarise_ratios(by_measure: dict[str, list[float]], design: Design) -> dict[str, Any]:
    """summarise() from each measure's pair ratios."""
    out: dict[str, Any] = {}
    for m in MEASURES:
        ratios = list(by_measure.get(m) or [])
        logs = np.log(ratios) if ratios else np.array([])
        sd = float(logs.std(ddof=1)) if logs.size > 1 else None
        out[m] = {
            "ratios": ratios,
            "log_ratio_sd": sd,
            "floor_margin": None if sd is None else floor_margin(sd, design.max_pairs, design),
            "at_pairs": design.max_pairs,
        }
    return out


def calibrate(
    fingerprint: str,
    workload: str,
    run_pair: Callable[[int], tuple[dict[str, float], dict[str, float]]],
    pairs: int,
    design: Design,
    cache_dir: Path | None = None,
    say: Callable[[str], None] = print,
    about: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Measure `pairs` A/A pairs (`run_pair(i)`: the two runs' figures by measure), cache and
    return the floor record (`about`: what else it should say, e.g. the backend)."""
    measured = []
    for i in range(pairs):
        a, b = run_pair(i)
        measured.append((a, b))
        if a.get("wall") and b.get("wall"):
            say(f"  pair {i + 1}/{pairs}: ratio {a['wall'] / b['wall']:.4f}")
    return _write(fingerprint, workload, pairs, about or {}, summarise(measured, design), cache_dir)


def from_comparison(
    fingerprint: str,
    workload: str,
    ratios: dict[str, list[float]],
    design: Design,
    about: dict[str, Any] | None = None,
    cache_dir: Path | None = None,
) -> dict[str, Any] | None:
    """Cache the floor an A/B comparison's own pair ratios (by measure) show, where this machine
    and workload have no A/A calibration; the record, or None where one exists or the pairs
    are too few (a comparison's floor is replaced by the latest comparison's)."""
    cached = read_floor(fingerprint, workload, cache_dir)
    if cached is not None and cached.get("source") != COMPARISON:
        return None
    pairs = len(ratios.get(design.measure) or [])
    if pairs < MIN_PAIRS:
        return None
    about = {"source": COMPARISON, **(about or {})}
    return _write(fingerprint, workload, pairs, about, summarise_ratios(ratios, design), cache_dir)


def _write(
    fingerprint: str,
    workload: str,
    pairs: int,
    about: dict[str, Any],
    measures: dict[str, Any],
    cache_dir: Path | None,
) -> dict[str, Any]:
    """One floor record, cached atomically: an A/A calibration's or a comparison's."""
    record = {
        "version": CACHE_VERSION,
        "fingerprint": fingerprint,
        "workload": workload,
        "pairs": pairs,
        **about,
        "measures": measures,
        "measured": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "load_average": list(os.getloadavg()),  # a loaded machine caches a high floor
    }
    path = cache_file(cache_dir or default_cache_dir(), fingerprint, workload)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(record, indent=1))
    os.replace(tmp, path)  # atomic, as the peak's cache
    return record | {"cache_file": str(path)}


def read_floor(fingerprint: str, workload: str, cache_dir: Path | None = None) -> dict | None:
    """The cached floor of this machine and workload (None: never calibrated)."""
    path = cache_file(cache_dir or default_cache_dir(), fingerprint, workload)
    try:
        record = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    return record | {"cache_file": str(path)} if record.get("version") == CACHE_VERSION else None


def describe(record: dict[str, Any] | None, measure: str, margin: float | None = None) -> str:
    """One line for a report: the floor, or that there is none; a margin below it is flagged."""
    if record is None:
        return "noise floor: not calibrated on this machine (twinbench calibrate measures it)"
    m = record["measures"][measure]
    floor = m["floor_margin"]
    kind = f"{record['pairs']} A/A pairs on {record['measured'][:10]}"
    if record.get("source") == COMPARISON:
        kind = (
            f"from the {record['pairs']} A/B pairs of a comparison on {record['measured'][:10]}; "
            "no A/A calibration yet: twinbench calibrate measures one"
        )
    text = f"noise floor ({measure} time, {kind}): log-ratio sd {m['log_ratio_sd']:.3f}, " + (
        f"resolves +-{floor:.1%} in {m['at_pairs']} pairs"
        if floor is not None
        else f"resolves no margin in {m['at_pairs']} pairs"
    )
    if margin is not None and (floor is None or margin < floor):
        text += f"; WARNING: the margin +-{margin:.0%} is below it: expect 'undecided'"
    return text
