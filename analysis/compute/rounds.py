"""A speed-up between two configurations of one workload, paired by round where it can be.

An interleaved sweep runs round r of every configuration back to back (launch/interleave.py):
a deciding sweep's 1-core pair and then its all-core pair, seconds apart, so a host phase of
minutes moves both and their ratio cancels it. Over all of a sweep's runs instead, a Welch
interval met different minutes once one core count had decided and the other went on alone
(docs/findings/2026-12-07-hardware-by-round.md). effects.hardware takes its speed-ups here.
"""

from __future__ import annotations

import pandas as pd

from twinbench import stats


def by_round(row: pd.Series) -> dict[tuple[str, str], float]:
    """A configuration's samples keyed by (sweep, round) where an interleaved sweep ran them
    (pair_id `<series>-r<round>`; the series differs between core counts, the round does not)."""
    pairs, sweeps = row.get("sample_pairs"), row.get("sample_sweeps")
    if not isinstance(pairs, list) or not isinstance(sweeps, list):
        return {}
    return {
        (sweep, pair.rsplit("-r", 1)[-1]): value
        for value, pair, sweep in zip(row["samples"], pairs, sweeps, strict=True)
        if isinstance(pair, str) and isinstance(sweep, str)
    }


def paired_speedup(ref: pd.Series, row: pd.Series) -> tuple[float, float, float, int, int] | None:
    """T(ref's cores) / T(row's cores) over the rounds that ran both, where at least two did:
    (speed-up, low, high, sweeps, rounds). One value a round (stats.units_ratio), or where the
    rounds come from several sweeps, one value a sweep (stats.sessions_ratio; sweeps 0 where
    they come from one). None: not paired, and the caller's forms over the runs stand."""
    a, b = by_round(ref), by_round(row)
    common = sorted(set(a) & set(b))
    if len(common) < 2:
        return None
    ratios = [a[k] / b[k] for k in common]
    sweeps = [k[0] for k in common]
    if len(set(sweeps)) > 1:
        s = stats.sessions_ratio(ratios, sweeps)
        return s.median, s.ci_low, s.ci_high, len(set(sweeps)), len(common)
    s = stats.units_ratio(ratios)
    return s.median, s.ci_low, s.ci_high, 0, len(common)
