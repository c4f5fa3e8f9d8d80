"""Core counts as people say them: `cpus=1` reads `1 core`, `cpus=null` (every allowed core)
reads `all (2)`. The first screen (twinbench/launch/screen.py) and the analysis's verdict both
label series this way."""

from __future__ import annotations


def cores_label(label: str, all_cores: int | None) -> str:
    """A series label as people say it: `cpus=1` -> `1 core`, `cpus=null` -> `all (2)`."""

    def one(token: str) -> str:
        key, _, value = token.partition("=")
        if key.lstrip("+~") != "cpus":
            return token
        if value in ("null", "None", ""):
            return f"all ({all_cores})" if all_cores else "all cores"
        if value.isdigit():
            n = int(value)
            if all_cores and n == all_cores:
                return f"all ({n})"
            return "1 core" if n == 1 else f"{n} cores"
        return token

    return " ".join(one(t) for t in label.split())


def count_label(cores: int, all_cores: int | None) -> str:
    """A record's core count as people say it."""
    return cores_label(f"cpus={cores}", all_cores)
