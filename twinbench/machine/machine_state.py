"""Machine settings that can change a process' speed without changing its code.

Recorded with every result (environment.machine_state) so that runs from two modes can be told
apart by them: transparent huge pages (whether large arrays get 2 MiB pages, which changes TLB
misses from one process to the next), the CPU frequency governor, whether this is a virtual
machine (a hypervisor's neighbours are invisible from inside) and the memory allocator the
process runs with (glibc's, or one preloaded) with any MALLOC_* tuning variables.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

THP = Path("/sys/kernel/mm/transparent_hugepage")
GOVERNOR = Path("/sys/devices/system/cpu/cpu0/cpufreq/scaling_governor")
ALLOCATORS = ("jemalloc", "tcmalloc", "mimalloc")


def _selected(path: Path) -> str | None:
    """The bracketed choice of a sysfs setting ('always [madvise] never' -> 'madvise')."""
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    if "[" in text:
        return text[text.index("[") + 1 : text.index("]")]
    return text


def _allocator() -> str:
    """A preloaded malloc replacement found among this process' mapped libraries, else glibc."""
    try:
        maps = Path("/proc/self/maps").read_text()
    except OSError:
        return "unknown"
    return next((name for name in ALLOCATORS if f"lib{name}" in maps), "glibc")


def _virtual() -> bool | None:
    try:
        return " hypervisor" in Path("/proc/cpuinfo").read_text()
    except OSError:
        return None


def _numpy_hugepages() -> bool | None:
    try:
        from numpy._core import multiarray
    except ImportError:
        return None
    getter = getattr(multiarray, "_get_madvise_hugepage", None)
    return None if getter is None else bool(getter())


def describe() -> dict[str, Any]:
    return {
        "virtual_machine": _virtual(),
        "transparent_hugepages": _selected(THP / "enabled"),
        "thp_defrag": _selected(THP / "defrag"),
        "cpufreq_governor": _selected(GOVERNOR),  # None: not visible (e.g. inside a VM)
        "allocator": _allocator(),
        # numpy asks for huge pages (madvise) on its large arrays unless NUMPY_MADVISE_HUGEPAGE=0:
        # with THP on "madvise", the data arrays are the only memory that gets them.
        "numpy_madvise_hugepage": _numpy_hugepages(),
        "ld_preload": os.environ.get("LD_PRELOAD"),
        "malloc_env": {k: v for k, v in os.environ.items() if k.startswith("MALLOC_")},
    }
