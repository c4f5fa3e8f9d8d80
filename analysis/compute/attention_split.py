"""Fused against explicit attention (conf/model `arch.attention`, models/transformer.py): per
workload, backend and core count, the steady step of each setting and their ratio
explicit / fused.

The ratio is the framework-effect table's (analysis/compute/effects.py): the median of paired
ratios where runs of both settings were interleaved (one pair_id, drift cancels within a pair),
else the ratio of medians with its Welch t-interval on logs (twinbench.stats.ratio_ci).

What was asked is not always what ran: Keras' MultiHeadAttention leaves its fused route when
the attention probabilities have dropout (gpt), whatever `arch.attention` says. So each side
shows the path and kernel its records report (`attention` block: {"path", "kernel"}, or the
same block under the read-back `settings`); a record that reports neither shows "not recorded",
never the setting it asked for.
"""

from __future__ import annotations

import math
from typing import Any

import pandas as pd

from twinbench import stats

SETTINGS = ("fused", "explicit")  # models/transformer.py ATTENTION, in the ratio's order
CELL = ["workload", "machine", "backend", "cpus"]
STEADY = "steady_step_s"
NOT_RECORDED = "not recorded"
MIN_PAIRS = 2  # below this, independent repeats decide (as effects._paired)


def _mapping(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _ran(record: dict[str, Any]) -> dict[str, Any]:
    """The attention block a run reports about itself: top level, else in its settings."""
    block = _mapping(record.get("attention"))
    return block or _mapping(_mapping(record.get("settings")).get("attention"))


def columns(record: dict[str, Any]) -> dict[str, Any]:
    """attention asked (the config's arch.attention), and the path and kernel that ran as the
    record reports them; {} for a run of a model without an attention setting."""
    arch = _mapping(_mapping(_mapping(record.get("config")).get("model")).get("arch"))
    asked = arch.get("attention")
    if asked is None:
        return {}
    ran = _ran(record)
    return {
        "attention": asked,
        "attention_path": ran.get("path"),
        "attention_kernel": ran.get("kernel"),
    }


def _what_ran(cell: pd.DataFrame) -> str:
    """The path and kernel ("path: kernel") the cell's runs report; each distinct answer where
    they differ."""
    seen = []
    for _, r in cell.iterrows():
        path, kernel = r.get("attention_path"), r.get("attention_kernel")
        if not isinstance(path, str):
            seen.append(NOT_RECORDED)
            continue
        seen.append(f"{path}: {kernel}" if isinstance(kernel, str) else path)
    return ", ".join(dict.fromkeys(seen))


def ratio(explicit: pd.DataFrame, fused: pd.DataFrame) -> tuple[float, float, float, int]:
    """explicit / fused steady step: paired where at least two pair_ids hold both settings,
    else a ratio of medians with its Welch t-interval on logs (nan without two runs a side).
    The last item is the number of pairs (0: independent repeats)."""
    if "pair_id" in explicit and "pair_id" in fused:
        by_pair = dict(zip(fused["pair_id"], fused[STEADY], strict=True))
        matched = [
            (float(v), float(by_pair[p]))
            for p, v in zip(explicit["pair_id"], explicit[STEADY], strict=True)
            if isinstance(p, str) and p in by_pair
        ]
        if len(matched) >= MIN_PAIRS:
            s = stats.paired_ratio([m[0] for m in matched], [m[1] for m in matched])
            return s.median, s.ci_low, s.ci_high, len(matched)
    point, lo, hi = stats.ratio_ci(explicit[STEADY].astype(float), fused[STEADY].astype(float))
    return point, (math.nan if lo is None else lo), (math.nan if hi is None else hi), 0


def _ok(runs: pd.DataFrame) -> pd.DataFrame:
    if "attention" not in runs or STEADY not in runs:
        return pd.DataFrame()
    ok = runs[(runs["status"] == "ok") & runs["attention"].isin(SETTINGS)]
    return ok.dropna(subset=[STEADY])


def split(runs: pd.DataFrame) -> pd.DataFrame:
    """One row per workload x machine x backend x cores holding ok runs of both settings."""
    ok = _ok(runs)
    rows: list[dict[str, Any]] = []
    if ok.empty:
        return pd.DataFrame()
    for key, cell in ok.groupby(CELL, dropna=False):
        sides = {s: cell[cell["attention"] == s] for s in SETTINGS}
        if any(side.empty for side in sides.values()):
            continue
        row: dict[str, Any] = dict(zip(CELL, key, strict=True))
        for name, side in sides.items():
            steady = stats.summarize(side[STEADY].astype(float))
            row |= {
                f"{name}_n": len(side),
                f"{name}_step_s": steady.median,
                f"{name}_low_s": steady.ci_low,
                f"{name}_high_s": steady.ci_high,
                f"{name}_ran": _what_ran(side),
            }
        point, lo, hi, pairs = ratio(sides["explicit"], sides["fused"])
        row |= {"ratio": point, "ratio_low": lo, "ratio_high": hi, "ratio_pairs": pairs}
        # One path and kernel on both sides (Keras' gpt): the ratio then measures the runs'
        # spread, not a kernel; said beside it rather than left to be read as a kernel effect.
        row["same_ran"] = row["fused_ran"] == row["explicit_ran"] != NOT_RECORDED
        rows.append(row)
    return pd.DataFrame(rows)


def missing(runs: pd.DataFrame) -> list[str]:
    """For each transformer workload whose runs hold one attention setting only: the one-line
    command that adds the other (same backends and cores), so the split can be made."""
    ok = _ok(runs)
    hints = []
    if ok.empty:
        return hints
    for workload, runs_of in ok.groupby("workload", sort=True):
        present = set(runs_of["attention"])
        if present >= set(SETTINGS):
            continue
        (other,) = set(SETTINGS) - present
        model = runs_of["model"].iloc[0]
        backends = ",".join(dict.fromkeys(runs_of["backend"]))
        cpus = ",".join(str(int(c)) for c in sorted(set(runs_of["cpus"].dropna())))
        hints.append(
            f"{workload}: only attention={'/'.join(sorted(present))} here; for the split, run: "
            f"python run.py -m backend={backends} model={model} "
            f"model.arch.attention={other} cpus={cpus}"
        )
    return hints


def lines(runs: pd.DataFrame) -> list[str]:
    """The terminal block: one line per cell, then the hints for one-setting workloads."""
    table, hints = split(runs), missing(runs)
    if table.empty and not hints:
        return []
    out = ["attention: explicit / fused steady step (what ran on each side)"]
    for _, r in table.iterrows():
        interval = (
            "no interval"
            if math.isnan(r["ratio_low"])
            else f"[{r['ratio_low']:.3f}, {r['ratio_high']:.3f}]"
        )
        out.append(
            f"  {r['workload']} {r['backend']} cpu{r['cpus']}: fused "
            f"{r['fused_step_s'] * 1e3:.2f} ms ({r['fused_ran']}), explicit "
            f"{r['explicit_step_s'] * 1e3:.2f} ms ({r['explicit_ran']}), "
            f"ratio {r['ratio']:.3f} {interval}"
            + (" [the same path ran on both sides]" if r["same_ran"] else "")
        )
    out += [f"  {h}" for h in hints]
    return [*out, ""]
