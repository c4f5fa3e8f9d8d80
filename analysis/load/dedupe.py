"""Duplicate and incompatible records: found, reported, never silently merged.

A run's identity is (run_key, repeat, machine fingerprint, started). Two files with the same
identity and identical content are one run copied twice (results gathered from several
machines often overlap): one row is kept, the other paths are listed on it and reported.
Same identity but different content (schema, configuration or measurements) cannot both be
right: every version is kept, flagged `incompatible`, and reported.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

IDENTITY = ["run_key", "repeat", "machine", "started"]


@dataclass
class Issues:
    duplicates: list[tuple[str, list[str]]] = field(default_factory=list)  # kept, dropped
    incompatible: list[tuple[str, list[str]]] = field(default_factory=list)  # why, paths

    def lines(self) -> list[str]:
        out = []
        for kept, dropped in self.duplicates:
            for path in dropped:
                out.append(f"duplicate: {path} is the same run as {kept}; counted once")
        for why, paths in self.incompatible:
            out.append(f"incompatible: {' vs '.join(paths)}: {why}; all kept, flagged")
        return out

    def __bool__(self) -> bool:
        return bool(self.duplicates or self.incompatible)


def _why(group: pd.DataFrame) -> str:
    reasons = []
    if group["schema_version"].astype("string").nunique(dropna=False) > 1:
        reasons.append("different schema_version")
    if group["config_hash"].nunique(dropna=False) > 1:
        reasons.append("different configuration")
    return ", ".join(reasons) or "same run, different measurements"


def dedupe(runs: pd.DataFrame) -> tuple[pd.DataFrame, Issues]:
    """Rows with one copy of each duplicated run, plus `duplicates` and `conflict` columns."""
    runs = runs.copy()  # input order: the copy in the first directory given is the one kept
    runs["duplicates"] = pd.Series("", index=runs.index, dtype="string")
    runs["conflict"] = pd.Series("", index=runs.index, dtype="string")
    issues = Issues()
    drop: list[int] = []
    for _, group in runs.groupby(IDENTITY, dropna=False, sort=False):
        if len(group) < 2:
            continue
        versions = group.groupby("content_hash", sort=False)
        for _, same in versions:
            if len(same) > 1:
                kept, dropped = same.index[0], list(same.index[1:])
                runs.loc[kept, "duplicates"] = "; ".join(same["path"].iloc[1:])
                issues.duplicates.append((same["path"].iloc[0], list(same["path"].iloc[1:])))
                drop += dropped
        if versions.ngroups > 1:
            firsts = [same.index[0] for _, same in versions]
            runs.loc[firsts, "conflict"] = "incompatible"
            issues.incompatible.append((_why(group), list(runs.loc[firsts, "path"])))
    return runs.drop(index=drop).sort_index(), issues
