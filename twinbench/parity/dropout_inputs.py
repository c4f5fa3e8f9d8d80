"""Each dropout site of one half against its twin in the reference, by what it is handed.

A dropout applied at the right rate to the wrong tensor (the attention block's input instead of
its output, the residual stream instead of the branch) passes every check of the site alone: it
runs, it zeroes its rate, and the model's output moves. What differs is the tensor it drops.
draws.py measures each site with every other dropout off, on initial weights both halves share
and the same probe rows, so a site's input is fixed: the same site of the other half is handed
a tensor of the same size, root mean square and mean, float32 rounding aside. Each site of the
backend must find a reference site handed such a tensor, each reference site used once. The
reference may hold sites the backend has no module for (Keras' attention layer calls its own
Dropout on the attention probabilities, which torch's fused kernel takes as a rate; its own
check, check_attention_dropout, judges that one), so only the backend's sites must all match.
"""

from __future__ import annotations

import json
from typing import Any

from twinbench.parity.draws import section, settings

Result = tuple[dict[str, Any], list[str]]


def _sites(arrays: dict[str, Any]) -> dict[str, dict[str, Any]]:
    found = {k: json.loads(str(v)) for k, v in section(arrays, "dropout_in_forward").items()}
    return {k: v for k, v in found.items() if "handed_rms" in v}


def _distance(mine: dict[str, Any], theirs: dict[str, Any]) -> float:
    """How far two sites' inputs are apart, relative to the reference's root mean square: the
    larger of the two figures' gaps (infinite for another size or rate)."""
    if mine["handed_values"] != theirs["handed_values"] or mine["rate"] != theirs["rate"]:
        return float("inf")
    scale = theirs["handed_rms"] or 1.0
    return max(
        abs(mine["handed_rms"] - theirs["handed_rms"]) / scale,
        abs(mine["handed_mean"] - theirs["handed_mean"]) / scale,
    )


def _finite(x: float) -> float | None:
    return x if x != float("inf") else None


def compare_dropout_inputs(reference: dict[str, Any], other: dict[str, Any]) -> Result:
    """({"rtol": ..., "sites": {backend site: its nearest reference site and distance}},
    failures): a backend site none of whose unused reference twins is within `handed_rtol` of
    it fails. Draws written before these figures existed hold none and are not judged."""
    rtol = settings()["dropout"]["handed_rtol"]
    theirs, mine = _sites(reference), _sites(other)
    free = dict(theirs)
    sites: dict[str, dict[str, Any]] = {}
    failures = []
    # nearest pairs first, so that a close twin is not taken by a farther site before it
    candidates = sorted(
        (_distance(m, t), name, twin) for name, m in mine.items() for twin, t in theirs.items()
    )
    for distance, name, twin in candidates:
        if name in sites or twin not in free or distance > rtol:
            continue
        sites[name] = {"twin": twin, "distance": _finite(distance)}
        del free[twin]
    for name in sorted(set(mine) - set(sites)):
        m = mine[name]
        nearest = min(theirs, key=lambda t: _distance(m, theirs[t]), default=None)
        gap = _distance(m, theirs[nearest]) if nearest else float("inf")
        # JSON has no infinity: another size or rate reads as no distance at all
        sites[name] = {"twin": None, "nearest": nearest, "distance": _finite(gap)}
        near = f"; nearest reference layer {nearest} is {gap:.2g} off" if nearest else ""
        failures.append(
            f"dropout: backend layer {name} (rate {m['rate']:g}) drops a tensor no reference "
            f"dropout is handed: {m['handed_values']} values, rms {m['handed_rms']:.6g}, mean "
            f"{m['handed_mean']:.3g}{near} (allowed {rtol:g} of its rms)"
        )
    return {"rtol": rtol, "sites": sites}, failures
