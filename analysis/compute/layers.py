"""Per-layer profiles side by side (frameworks/profiling.py, runs with profile=true): per
workload and core count, each layer's op milliseconds per step in the reference backend and in
each other backend present (analysis/load/backends.py), and the layers where they differ most."""

from __future__ import annotations

import json
from typing import Any

import pandas as pd

from analysis.load import backends
from analysis.render.htmlkit import Col, esc, table_html

KEYS = ["workload", "machine", "cpus"]
# A group's row beside its layers' (transformers: attention, MLP, LayerNorm, embedding/head, as
# the record's profile names them): "attention (all)" sums the group's layers per step.
TOTAL = "{} (all)"


def columns(record: dict[str, Any]) -> dict[str, Any]:
    profile = record.get("profile")
    if not isinstance(profile, dict) or not isinstance(profile.get("ops_ms"), dict):
        return {}
    groups = profile.get("layer_groups")  # frameworks/profiling.py, models with LAYER_GROUPS
    return {
        "profile_ops_ms": json.dumps(profile["ops_ms"], sort_keys=True),
        "profile_wall_ms": profile.get("wall_ms"),
        "profile_host_other_ms": profile.get("host_other_ms"),
        "profile_groups": json.dumps(groups, sort_keys=True) if isinstance(groups, dict) else None,
    }


def run_rows(r: pd.Series) -> list[dict[str, Any]]:
    """One run's layers (with their group where its record names one) and its groups' sums."""
    ops = json.loads(r["profile_ops_ms"])
    ops["host (dispatch, Python, executor)"] = r["profile_host_other_ms"]
    named = r.get("profile_groups")
    groups = json.loads(named) if isinstance(named, str) else {}
    base = {**{k: r[k] for k in KEYS}, "backend": r["backend"]}
    rows = [{**base, "layer": layer, "group": groups.get(layer, ""), "ms": ms}
            for layer, ms in ops.items()]  # fmt: skip
    for group in dict.fromkeys(groups.values()):
        total = sum(ops[layer] for layer, g in groups.items() if g == group and layer in ops)
        rows.append({**base, "layer": TOTAL.format(group), "group": group, "ms": total})
    return rows


def table(runs: pd.DataFrame, reference: str | None = None) -> pd.DataFrame:
    """One row per workload x machine x cores x layer: median ms per step per framework."""
    if "profile_ops_ms" not in runs:
        return pd.DataFrame()
    ok = runs[(runs["status"] == "ok") & runs["profile_ops_ms"].notna()]
    rows = [row for _, r in ok.iterrows() for row in run_rows(r)]
    if not rows:
        return pd.DataFrame()
    long = pd.DataFrame(rows)
    # A layer's group from any run that names it: one backend's record may predate the groups.
    named = long[long["group"] != ""].drop_duplicates([*KEYS, "layer"])
    group_of = named.set_index([*KEYS, "layer"])["group"].to_dict()
    wide = long.pivot_table(index=[*KEYS, "layer"], columns="backend", values="ms",
                            aggfunc="median").reset_index()  # fmt: skip
    wide.insert(len(KEYS), "group", [group_of.get(tuple(k), "")
                                     for k in wide[[*KEYS, "layer"]].values])  # fmt: skip
    present = backends.order(long["backend"])
    reference = reference if reference in present else backends.choose_reference(present, None)
    pairs = []
    for other in (b for b in present if b != reference):
        # One row per layer and other backend; the two backends' own columns (named by the
        # backends) beside the generic reference/other ones.
        pair = wide[[*KEYS, "group", "layer", reference, other]].copy()
        pair["reference"], pair["other"] = reference, other
        pair["reference_ms"], pair["other_ms"] = pair[reference], pair[other]
        pair["difference_ms"] = pair[reference] - pair[other]
        pair["ratio"] = pair[reference] / pair[other]
        pairs.append(pair)
    if not pairs:
        return pd.DataFrame()
    return pd.concat(pairs, ignore_index=True).sort_values([*KEYS, "group", "layer", "other"])


def top_differences(t: pd.DataFrame, n: int = 3) -> pd.DataFrame:
    if t.empty:
        return t
    t = t.dropna(subset=["difference_ms"]).assign(size=lambda d: d["difference_ms"].abs())
    t = t[~t["layer"].str.endswith(TOTAL.format(""))]  # a group's sum would hide its layers
    return t.sort_values("size", ascending=False).groupby([*KEYS, "other"], sort=False).head(n)


def lines(runs: pd.DataFrame, reference: str | None = None) -> list[str]:
    t = table(runs, reference)
    top = top_differences(t)
    if top.empty:
        return []
    out = ["per-layer profile (profile=true): largest reference - other differences, ms per step"]
    for _, r in top.iterrows():
        out.append(
            f"  {r['workload']} cpu{r['cpus']} {r['layer']}: {r['reference']} "
            f"{r['reference_ms']:.2f} ms, {r['other']} {r['other_ms']:.2f} ms "
            f"({r['difference_ms']:+.2f})"
        )
    return [*out, ""]


def section(page: Any, an: Any) -> None:
    t = table(an.runs, an.reference)
    if t.empty:
        return
    page.add(
        f'<h2 id="layers">Per-layer profile: {esc(t["reference"].iloc[0])} vs '
        f"{esc(', '.join(dict.fromkeys(t['other'])))}</h2>"
    )
    page.add(
        "<p>From runs with <code>profile=true</code>: each framework's own profiler over "
        "steps run after the timed ones, op time per step in milliseconds (summed over "
        "threads), mapped to the model's layer names plus optimizer, loss, data, "
        "pool/dropout/reshape and other; <i>host</i> is the wall time per step not covered "
        "by ops. Profilers add overhead of their own, torch's per op more than TensorFlow's "
        "per graph: compare layers within a framework first, then across. Activations fused "
        "into a Keras layer are in that layer; torch's ReLU modules are counted with the "
        "layer before them. A transformer's layers carry their group (attention: the Q, K, V "
        "and output projections and the attention product; MLP; LayerNorm; embedding/head), "
        "and each group has a row of its own, <i>group (all)</i>, summing its layers.</p>"
    )
    page.add(
        table_html(
            t,
            [
                Col("workload", "workload"),
                Col("cpus", "cores", "g"),
                Col("group", "group"),
                Col("layer", "layer"),
                Col("reference", "reference"),
                Col("other", "other"),
                Col("reference_ms", "reference ms", "s"),
                Col("other_ms", "other ms", "s"),
                Col("difference_ms", "reference - other ms", "s"),
                Col("ratio", "reference / other", "x"),
            ],
        )
    )
    page.csv(t, "layers")
