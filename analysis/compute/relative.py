"""Training time and cost of every configuration relative to one baseline configuration.

As in the 2017 study: a configuration's time divided by the baseline's time on the same
workload, and likewise its cost (time x price per second). The baseline is one configuration
measured for every workload of a source, so all bars of a source share one reference:
by default the GPU run, else the configuration with the most cores of the 2017 study's backend
(analysis/load/legacy.py BACKEND), then of the others in analysis/load/backends.py order;
`--baseline`
names another (a label such as `torch cpu2`, or filters such as `backend=torch,cpus=2`).
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from analysis.compute import sessions
from analysis.compute.pricing import PriceTable
from analysis.errors import AnalysisError
from analysis.load import backends
from analysis.load.legacy import BACKEND as LEGACY_BACKEND
from analysis.load.legacy import LABELS as LEGACY_LABELS
from twinbench import stats


@dataclass(frozen=True)
class Baseline:
    source: str
    label: str
    reason: str


def _common_ok(summary: pd.DataFrame) -> list[str]:
    """Configurations with a successful run for every workload that has any."""
    ok = summary[summary["n_ok"] > 0]
    per_workload = [set(g["config_label"]) for _, g in ok.groupby("workload", sort=False)]
    common = set.intersection(*per_workload) if per_workload else set()
    return [c for c in ok["config_label"].drop_duplicates() if c in common]


def _matches(summary: pd.DataFrame, spec: str) -> set[str]:
    """Labels matching a baseline spec: an exact label, or comma-separated key=value filters."""
    labels = set(summary["config_label"])
    for label in labels:
        if label.casefold() == spec.strip().casefold():
            return {label}
    if "=" not in spec:
        return set()
    mask = pd.Series(True, index=summary.index)
    for part in spec.split(","):
        key, _, value = part.partition("=")
        key, value = key.strip(), value.strip()
        if key not in summary.columns:
            raise AnalysisError(f"--baseline {spec!r}: unknown field {key!r}")
        mask &= summary[key].astype("string").str.casefold() == value.casefold()
    return set(summary.loc[mask, "config_label"])


def choose(summary: pd.DataFrame, source: str, spec: str | None = None) -> Baseline | None:
    """The baseline of one source; None when it has no successful run at all."""
    s = summary[summary["source"] == source]
    if not (s["n_ok"] > 0).any():
        return None
    common = _common_ok(s)
    if spec:
        matched = _matches(s, spec)
        usable = [c for c in common if c in matched]
        if not matched:
            raise AnalysisError(f"no common baseline: --baseline {spec!r} matches no {source} run")
        if not usable:
            missing = sorted(
                set(s["workload"])
                - set(s[s["config_label"].isin(matched) & (s["n_ok"] > 0)]["workload"])
            )
            raise AnalysisError(
                f"no common baseline: --baseline {spec!r} has no successful {source} run for "
                f"{', '.join(missing)}"
            )
        if len(usable) > 1:
            raise AnalysisError(
                f"--baseline {spec!r} is ambiguous: it matches {', '.join(sorted(usable))}"
            )
        return Baseline(source, usable[0], "chosen with --baseline")
    if not common:
        per = "; ".join(
            f"{w}: {', '.join(g['config_label'])}"
            for w, g in s[s["n_ok"] > 0].groupby("workload", sort=False)
        )
        raise AnalysisError(
            f"no common baseline: no configuration of {source} ran successfully for every "
            f"workload ({per}); choose one with --baseline"
        )
    c = s[s["config_label"].isin(common)].drop_duplicates("config_label")
    # The 2017 study's backend first, so its relative bars read as they did then.
    ranked = [LEGACY_BACKEND, *backends.order(c["backend"])]
    rank = {name: ranked.index(name) for name in ranked}
    gpu = c[c["device"] == "cuda"]
    if len(gpu):
        gpu = gpu.assign(r=gpu["backend"].map(rank).fillna(len(ranked))).sort_values(
            "r", kind="stable"
        )
        return Baseline(source, gpu["config_label"].iloc[0], "the GPU run")
    # Prefer each backend's out-of-the-box settings over tuned variants as the reference.
    c = c.assign(
        r=c["backend"].map(rank).fillna(len(ranked)),
        d=(c["settings_default"] != True).astype(int),  # noqa: E712
        k=pd.to_numeric(c["settings_changes"], errors="coerce").fillna(0),
        n=-pd.to_numeric(c["cpus"], errors="coerce").fillna(0),
    ).sort_values(["r", "n", "d", "k"], kind="stable")
    best = c.iloc[0]
    return Baseline(
        source,
        best["config_label"],
        f"no GPU run: the {best['backend']} configuration with the most cores "
        f"({best['cpus']}) measured for every workload",
    )


def bar_order(rows: pd.DataFrame) -> pd.DataFrame:
    """The 2017 order for the 2017 labels; else the GPU first, then the most cores first, the
    frameworks side by side at each core count."""
    legacy = {label: i for i, label in enumerate(LEGACY_LABELS)}
    key = [
        (
            legacy.get(r["config_label"], len(legacy)),
            r["device"] != "cuda",
            -(r["cpus"] if pd.notna(r["cpus"]) else 0),
            str(r["backend"]),
            str(r["config_label"]),
        )
        for _, r in rows.iterrows()
    ]
    order = sorted(range(len(rows)), key=key.__getitem__)
    return rows.iloc[order]


def table(
    summary: pd.DataFrame, baselines: dict[str, Baseline], prices: dict[str, PriceTable]
) -> pd.DataFrame:
    """Each configuration's time, cost, and both relative to its source's baseline."""
    out = []
    for (source, _workload), group in summary.groupby(["source", "workload"], sort=False):
        group = bar_order(group)
        base_choice = baselines.get(source)
        if base_choice is None:
            continue
        price = prices[source]
        base = group[group["config_label"] == base_choice.label]
        if base.empty:  # this workload failed everywhere: shown in the failures instead
            continue
        base = base.iloc[0]
        base_price = price.per_second(base["device"], base["cpus"])
        base_cost = base["time"] * base_price if base_price is not None else float("nan")
        for _, row in group.iterrows():
            rate = price.per_second(row["device"], row["cpus"])
            cost = row["time"] * rate if rate is not None else float("nan")
            lo = hi = float("nan")
            sweeps = 0
            # Plain quotients, in the 2017 notebook's order: its figures come out exactly.
            time_rel = row["time"] / base["time"]
            over = sessions.ratio_over_sweeps(
                row["samples"], row.get("sample_sweeps"), base["samples"], base.get("sample_sweeps")
            )
            if over is not None:  # runs of several sweeps: each sweep one value, as in effects.py
                # and the point with it: the quotient of the pooled medians weighs a sweep by
                # its runs and can lie outside the sweeps' interval (the chart's whisker then
                # had a negative length and the report stopped, 2026-12-07)
                time_rel, lo, hi, sweeps = over
            elif len(row["samples"]) > 1 and len(base["samples"]) > 1:
                _, lo, hi = stats.ratio_ci(row["samples"], base["samples"])
            price_ratio = rate / base_price if rate is not None and base_price else float("nan")
            out.append(
                {
                    **row.to_dict(),
                    "baseline": base_choice.label,
                    "pricing": price.name,
                    "price_per_hour": rate * 3600 if rate is not None else float("nan"),
                    "cost": cost,
                    "time_rel": time_rel,
                    "time_rel_ci_low": lo,
                    "time_rel_ci_high": hi,
                    "time_rel_sweeps": sweeps,  # above 1: the interval is over these sweeps
                    "cost_rel": cost / base_cost if over is None else time_rel * price_ratio,
                    "cost_rel_ci_low": lo * price_ratio,
                    "cost_rel_ci_high": hi * price_ratio,
                }
            )
    return pd.DataFrame(out)
