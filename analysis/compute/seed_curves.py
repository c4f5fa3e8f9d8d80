"""Learning curves over seeds: does each framework's training end where the other's does?

One seed is one draw: initial weights, batch order, dropout masks. Two frameworks running the
same math give two samples of the same distribution, so their final values are compared against
the spread between seeds, not against each other's single run.

The stated test (`agreement`): the two frameworks' mean final values may differ by at most
BAND_SDS times the larger of their seed standard deviations, or REL_FLOOR of the value where the
seeds happen to agree more closely than that; Welch's t-test p-value is reported beside it (with
3 seeds it has little power, so it informs, it does not decide). The figure draws each
framework's mean curve with its min-max band over seeds.
"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
import pandas as pd
from matplotlib.figure import Figure
from matplotlib.ticker import MaxNLocator

from analysis.load import backends
from analysis.load.records import SOURCE
from analysis.render import charts
from analysis.render.htmlkit import Col, prose, table_html

BAND_SDS = 2.0
REL_FLOOR = 0.02
METRICS = ("val_loss", "val_accuracy", "loss", "accuracy")


def agreement(finals: dict[str, list[float]], metric: str) -> dict[str, Any]:
    """Whether two frameworks' final values (one per seed) agree within the seed band."""
    (name_a, a), (name_b, b) = ((k, np.asarray(v, float)) for k, v in sorted(finals.items()))
    spread = max((float(np.std(x, ddof=1)) for x in (a, b) if len(x) > 1), default=0.0)
    centre = abs(float(np.mean(np.concatenate([a, b]))))
    band = max(BAND_SDS * spread, REL_FLOOR * centre)
    diff = float(np.mean(a) - np.mean(b))
    p_value = None
    if min(len(a), len(b)) > 1 and (np.var(a) > 0 or np.var(b) > 0):
        from scipy import stats

        p_value = float(stats.ttest_ind(a, b, equal_var=False).pvalue)
    return {
        "metric": metric,
        "frameworks": f"{name_a} - {name_b}",
        "seeds": f"{len(a)}, {len(b)}",
        f"mean_{name_a}": float(np.mean(a)),
        f"mean_{name_b}": float(np.mean(b)),
        "difference": diff,
        "seed_sd": spread,
        "band": band,
        "welch_p": p_value,
        "agree": abs(diff) <= band,
    }


def seed_histories(runs: pd.DataFrame) -> dict[str, dict[str, dict[int, dict[str, list[float]]]]]:
    """model -> backend -> seed -> history, from successful twinbench runs of full epochs. Where
    a seed ran more than once, its run with the most epochs stands for it."""
    ours = runs[(runs["source"] == SOURCE) & (runs["status"] == "ok")]
    if "seed" not in ours or ours.empty:
        return {}
    out: dict[str, dict[str, dict[int, dict[str, list[float]]]]] = {}
    ordered = ours.sort_values("epochs_timed")
    for _, row in ordered.iterrows():
        try:
            history = json.loads(row["history"]) if isinstance(row["history"], str) else {}
        except ValueError:
            continue
        if history and row["seed"] is not None and not pd.isna(row["seed"]):
            per_seed = out.setdefault(str(row["model"]), {}).setdefault(str(row["backend"]), {})
            per_seed[int(row["seed"])] = history
    return out


def _last_value(values: list[float | None] | None) -> float | None:
    """The final value of a series whose epochs between validations hold null."""
    present = [v for v in values or [] if v is not None]
    return present[-1] if present else None


def finals(per_seed: dict[Any, dict[str, list]], metric: str) -> list[float]:
    """One backend's final value of `metric` per seed (seeds without one left out)."""
    return [v for h in per_seed.values() if (v := _last_value(h.get(metric))) is not None]


def agreement_table(histories: dict[str, dict[str, dict[int, dict[str, list[float]]]]]):
    """agreement_rows as a table."""
    return pd.DataFrame(agreement_rows(histories))


def agreement_rows(
    histories: dict[str, dict[str, dict[int, dict[str, list[float]]]]],
) -> list[dict[str, Any]]:
    """One row per model, metric and backend pair (the reference, analysis/load/backends.py, against
    each other backend) where both have at least two seeds."""
    rows = []
    for model, all_backends in sorted(histories.items()):
        per_backend = {b: s for b, s in all_backends.items() if len(s) >= 2}
        pairing = backends.reference_and_others(
            per_backend, backends.choose_reference(per_backend, None) or ""
        )
        if pairing is None:
            continue
        reference, others = pairing
        for other in others:
            for metric in METRICS:
                found = {b: finals(per_backend[b], metric) for b in (reference, other)}
                if min(len(v) for v in found.values()) >= 2:
                    rows.append({"model": model, **agreement(found, metric)})
    return rows


def figure(model: str, per_backend: dict[str, dict[int, dict[str, list[float]]]]) -> Figure:
    """Validation loss and accuracy per epoch: each framework's mean over seeds, with the band
    from the lowest to the highest seed (training values where a model does not validate)."""
    fig, axes = charts._figure(10, 3.6, 2)
    for ax, metric in zip(axes, ("loss", "accuracy"), strict=True):
        for backend, seeds in sorted(per_backend.items()):
            key = "val_" + metric if any(h.get("val_" + metric) for h in seeds.values()) else metric
            series = [h[key] for h in seeds.values() if h.get(key)]
            length = min(len(s) for s in series) if series else 0
            if not length:
                continue
            # Epochs between validations hold null (validate_every): only epochs every seed
            # has a value for are drawn.
            values = np.array([s[:length] for s in series], dtype=float)
            kept = ~np.isnan(values).any(0)
            values, epochs = values[:, kept], np.arange(1, length + 1)[kept]
            colour = backends.colour(backend, per_backend)
            ax.plot(
                epochs, values.mean(0), color=colour, label=f"{backend} {key}, {len(series)} seeds"
            )
            ax.fill_between(epochs, values.min(0), values.max(0), color=colour, alpha=0.25, lw=0)
        ax.set_title(f"{metric.capitalize()}: {model}, mean and seed band")
        ax.set_xlabel("epoch")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.legend(fontsize=7)
    return fig


def section(page, runs: pd.DataFrame) -> None:
    """The report's seed-band figures and agreement table (analysis/render/sections/parity.py,
    equivalence)."""

    histories = seed_histories(runs)
    banded = {m: b for m, b in histories.items() if max(len(s) for s in b.values()) >= 2}
    if not banded:
        return
    page.add(prose("seed_curves").intro(BAND_SDS, REL_FLOOR))
    for model, per_backend in sorted(banded.items()):
        page.figure(
            figure(model, per_backend),
            f"seed_curves_{model}",
            f"{model}: mean and seed band of every backend",
        )
    table = agreement_table(banded)
    if not table.empty:
        text = {"model", "metric", "frameworks", "seeds"}
        cols = [
            Col(c, c.replace("_", " "), "t" if c in text else "bool" if c == "agree" else "g")
            for c in table.columns
        ]
        page.add(table_html(table, cols, lambda r: "" if r.get("agree") else "unstable"))
        page.csv(table, "seed_agreement")
