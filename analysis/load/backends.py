"""Which backends the records hold, and how the analysis names, orders and colours them.

A backend is a model API on a runtime (frameworks/registry.py). The worker writes the backend's
`api`, `runtime` and `label` into every record (twinbench/result/results.py, schema version 4); the
analysis reads them from there, so records from a machine whose registry knows a backend this one
does not still compare. Records written before version 4 carry only the backend's name: for those
the ONE fallback is `identity` below, which asks this checkout's registry (importing
frameworks.registry loads no framework) and, for a name it does not know, takes the name itself
for API, runtime and label.

Framework comparisons are "reference backend vs each other backend present": the reference is
`DEFAULT_REFERENCE` unless `python -m analysis --reference NAME` chooses another.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from frameworks import registry

# The backend every other one is compared with when the user names none: the hand-written
# loop on its own runtime is the least-abstracted baseline.
DEFAULT_REFERENCE = registry.REPORT_REFERENCE

# Line and marker colours, one per backend in `order`; then grey for any beyond.
PALETTE = ("#e6550d", "#3182bd", "#31a354", "#756bb1", "#636363", "#d6616b")
# Sequential colour maps (darker with more cores), one per backend in `order`.
FAMILY_MAPS = ("Oranges", "Blues", "Greens", "Purples", "Reds", "Greys")


def identity(name: Any, record: dict[str, Any] | None = None) -> dict[str, str | None]:
    """The backend's api, runtime and label: the record's own, else the registry's, else the
    name (see the module docstring)."""
    record = record or {}
    own = {key: record.get(f"backend_{key}") for key in ("api", "runtime", "label")}
    if all(isinstance(v, str) and v for v in own.values()):
        return own
    if not isinstance(name, str) or not name:
        return {"api": None, "runtime": None, "label": None}
    try:
        spec = registry.spec(name)
    except ValueError:
        return {"api": name, "runtime": name, "label": name}
    return {"api": spec.api, "runtime": spec.runtime, "label": spec.label}


def columns(name: Any, record: dict[str, Any] | None = None) -> dict[str, str | None]:
    """`identity` as the runs table's columns: api, runtime, backend_label."""
    found = identity(name, record)
    return {"api": found["api"], "runtime": found["runtime"], "backend_label": found["label"]}


def order(names: Iterable[Any]) -> list[str]:
    """The backends present, the registry's order first (stable colours across reports), then
    any it does not know, alphabetically."""
    present = {str(n) for n in names if isinstance(n, str) and n}
    known = [n for n in registry.names() if n in present]
    return known + sorted(present - set(known))


def colour(name: str, present: Iterable[Any] = ()) -> str:
    """A backend's line colour: by its place in `order` over the registry and `present`."""
    ranked = order([*registry.names(), *present])
    i = ranked.index(name) if name in ranked else len(PALETTE) - 1
    return PALETTE[min(i, len(PALETTE) - 1)]


def family_map(name: str, present: Iterable[Any] = ()) -> str:
    """A backend's sequential colour map (darker with more cores)."""
    ranked = order([*registry.names(), *present])
    i = ranked.index(name) if name in ranked else len(FAMILY_MAPS) - 1
    return FAMILY_MAPS[min(i, len(FAMILY_MAPS) - 1)]


def reference_and_others(names: Iterable[Any], reference: str) -> tuple[str, list[str]] | None:
    """The reference and every other backend present, in `order`; None where the reference is
    absent or alone."""
    present = order(names)
    if reference not in present or len(present) < 2:
        return None
    return reference, [n for n in present if n != reference]


def choose_reference(names: Iterable[Any], requested: str | None) -> str | None:
    """The reference for these runs: `requested` (which must have runs), else DEFAULT_REFERENCE
    where present, else the first backend in `order`; None where there are no backends."""
    present = order(names)
    if requested is not None:
        if requested not in present:
            raise ValueError(
                f"--reference {requested}: no runs of that backend; "
                f"choose one of: {', '.join(present) or 'none present'}"
            )
        return requested
    if DEFAULT_REFERENCE in present:
        return DEFAULT_REFERENCE
    return present[0] if present else None
