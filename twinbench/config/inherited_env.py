"""Environment variables that change what a run measures, refused when the shell sets them.

A run's identity (its run_key) is its resolved config. A variable such as TF_ENABLE_ONEDNN_OPTS
or OMP_PROC_BIND changes which kernels run or where threads sit, yet left the identity unchanged:
a run measured under it was labelled, compared and reused as a default run. Each variable below
is therefore refused before anything runs, with the twinbench setting that does the same job
where one exists. The thread-count variables (OMP_NUM_THREADS and the rest) are not here: the
worker sets them from `threads`, overriding whatever the shell had.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import NoReturn

from twinbench.config.choices import ConfigError

PINNING = "twinbench pins the run's cores itself (cpus=..., threads=...)"
KERNELS = "it changes which kernels run; twinbench measures each library as installed"
REFUSED: dict[str, str] = {
    "TF_ENABLE_ONEDNN_OPTS": "use the backend setting backend.onednn=true|false",
    "OMP_PLACES": PINNING,
    "OMP_PROC_BIND": PINNING,
    "GOMP_CPU_AFFINITY": PINNING,
    "KMP_AFFINITY": PINNING,
    "KMP_HW_SUBSET": PINNING,
    "OMP_WAIT_POLICY": "it changes how idle threads spin between ops",
    "GOMP_SPINCOUNT": "it changes how idle threads spin between ops",
    "KMP_BLOCKTIME": "it changes how idle threads spin between ops",
    "OMP_DYNAMIC": "it lets the OpenMP runtime shrink the thread count that twinbench verifies",
    "MKL_DYNAMIC": "it lets MKL shrink the thread count that twinbench verifies",
    "MKL_ENABLE_INSTRUCTIONS": KERNELS,
    "MKL_DEBUG_CPU_TYPE": KERNELS,
    "MKL_CBWR": KERNELS,
    "ONEDNN_MAX_CPU_ISA": KERNELS,
    "DNNL_MAX_CPU_ISA": KERNELS,
    "ONEDNN_DEFAULT_FPMATH_MODE": KERNELS,
    "XLA_FLAGS": "use the backend's settings (backend.jit_compile, backend.xla)",
    "TF_XLA_FLAGS": "use the backend's settings (backend.xla)",
}
ALLOCATOR = (
    "it changes how memory is allocated and returned; the setting backend.allocator=retain "
    "sets glibc's malloc for the run, in its identity"
)
# glibc's malloc variables (mallopt(3)); MALLOC_CHECK_ and MALLOC_PERTURB_ add checking and
# filling work to every allocation.
MALLOC_VARIABLES = ("MALLOC_ARENA_MAX", "MALLOC_ARENA_TEST", "MALLOC_MMAP_MAX_",
                    "MALLOC_MMAP_THRESHOLD_", "MALLOC_TOP_PAD_", "MALLOC_TRIM_THRESHOLD_",
                    "MALLOC_CHECK_", "MALLOC_PERTURB_")  # fmt: skip
REFUSED.update(dict.fromkeys(MALLOC_VARIABLES, ALLOCATOR))
# Refused only where the value names what changes the measurement: the words to look for.
REFUSED_WHEN_IT_NAMES: dict[str, tuple[str, ...]] = {
    "GLIBC_TUNABLES": ("glibc.malloc",),
    "LD_PRELOAD": ("malloc",),  # libjemalloc, libtcmalloc(_minimal), libmimalloc
}


def check(environ: Mapping[str, str] = os.environ) -> None:
    """ConfigError naming the first variable set here that would change what is measured."""
    for name, advice in REFUSED.items():
        if name in environ:
            _refuse(name, environ[name], advice)
    for name, words in REFUSED_WHEN_IT_NAMES.items():
        if any(word in environ.get(name, "").lower() for word in words):
            _refuse(name, environ[name], ALLOCATOR)


def _refuse(name: str, value: str, advice: str) -> NoReturn:
    raise ConfigError(
        f"{name}={value} is set in the environment: it changes what is measured "
        f"but not the run's identity; unset it ({advice})"
    )
