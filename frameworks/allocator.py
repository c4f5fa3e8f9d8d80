"""The C allocator a worker runs under: `backend.allocator`, set before the process starts and
read back from glibc after training.

Under glibc's defaults a large block (above malloc's mmap threshold, 128 KiB rising to 32 MiB)
comes from its own `mmap` and goes back with `munmap` when freed, so a training step that
frees its gradients and asks for them again faults every page in afresh. On this project's
micro-VMs that made torch's fastText step 2.2x (AMD) and 1.5x (Intel) slower than with the
blocks kept (docs/findings/2026-12-07-allocator-page-faults.md). `retain` keeps them: large
blocks come from the heap and the heap is never trimmed, so a freed block is reused as it is.

glibc reads these variables when the process starts, before any Python runs, so the parent puts
them in the worker's environment at spawn (twinbench/worker/pinning.py); the shell's own
MALLOC_* variables are refused (twinbench/config/inherited_env.py).
"""

from __future__ import annotations

import ctypes
import os
from typing import Any

from twinbench.result.blocks import PAGE_FAULTS_FLAG

DEFAULT = "default"
RETAIN = "retain"
# Above any memory this project's machines have: the heap's top is never given back.
NEVER_TRIM_BYTES = 64 * 2**30
VARIABLES: dict[str, dict[str, str]] = {
    DEFAULT: {},
    RETAIN: {"MALLOC_MMAP_MAX_": "0", "MALLOC_TRIM_THRESHOLD_": str(NEVER_TRIM_BYTES)},
}
MODES = tuple(VARIABLES)
# measure.kernel_share_flag's default (conf/config.yaml): the share of the training steps' CPU
# time in the kernel from which a run under the default mode is flagged.
FLAG_SHARE = 0.05
MEANING = (
    "the C allocator: default = glibc's malloc as it comes (large blocks mmapped, returned when "
    "freed); retain = large blocks from the heap, never trimmed, so a step's freed buffers are "
    "reused without page faults"
)


class AllocatorError(ValueError):
    pass


def libc() -> str | None:
    """glibc's name and version ("glibc 2.36"), or None under another C library."""
    try:
        return os.confstr("CS_GNU_LIBC_VERSION")
    except (ValueError, OSError):
        return None


def refusal(mode: str | None) -> str | None:
    """Why `mode` cannot run here (checked in the parent, before anything starts), or None."""
    if mode in (None, DEFAULT):
        return None
    if libc() is None:
        return (
            f"backend.allocator={mode} sets glibc's malloc, and this system's C library is not "
            "glibc; use backend.allocator=default"
        )
    return None


def overrides(mode: str) -> tuple[str, ...]:
    """A twinbench run's setting for `mode`, as command-line overrides: nothing for the default,
    so a run under it reads as it always has (the speed tables' twinbench side, and both halves
    of an A/A pair of twinbench aa and calibrate)."""
    return () if mode == DEFAULT else (f"backend.allocator={mode}",)


def environment(mode: str | None) -> dict[str, str]:
    """The variables glibc reads at the worker's start for `mode` (null: the default)."""
    return dict(VARIABLES[mode or DEFAULT])


MALLINFO2_FIELDS = ("arena", "ordblks", "smblks", "hblks", "hblkhd", "usmblks", "fsmblks",
                    "uordblks", "fordblks", "keepcost")  # fmt: skip


class _MallInfo2(ctypes.Structure):  # struct mallinfo2, glibc 2.33 and later (mallinfo(3))
    _fields_ = [(name, ctypes.c_size_t) for name in MALLINFO2_FIELDS]


def _mallinfo() -> _MallInfo2 | None:
    try:
        call = ctypes.CDLL(None).mallinfo2
    except (OSError, AttributeError):  # not glibc, or one older than 2.33
        return None
    call.restype = _MallInfo2
    return call()


def started_with() -> dict[str, str]:
    """glibc's malloc variables as this process started with them. /proc/self/environ keeps the
    environment of exec, which is what glibc read: the worker's own os.environ.update of its
    budget (twinbench/worker/pinning.py) changes os.environ, not that."""
    try:
        raw = open("/proc/self/environ", "rb").read().split(b"\0")  # noqa: SIM115 -- one read
        pairs = (item.decode(errors="replace").partition("=") for item in raw if item)
        environ = {name: value for name, _, value in pairs}
    except OSError:  # no /proc: the variables as Python sees them
        environ = dict(os.environ)
    return {name: environ[name] for name in VARIABLES[RETAIN] if name in environ}


# glibc's mmap threshold rises with use up to 32 MiB (DEFAULT_MMAP_THRESHOLD_MAX, 64-bit): a block
# above it that no free chunk can hold is mapped under the default mode, whatever the process did
# before, and taken from the main heap under `retain`. malloc first looks for a free chunk, so
# the probe asks for more than all the free memory glibc holds (a torch CNN's heap held a free
# 48 MiB, and a 48 MiB probe came from it under the default).
PROBE_BYTES = 48 * 2**20


def large_block_mapped() -> bool | None:
    """Whether a block larger than PROBE_BYTES and than every free byte glibc holds, asked for on
    this (the main) thread, is mapped: glibc's own answer to which mode it runs, asked once after
    training. malloc touches no page of it, and it is freed at once. None where glibc cannot
    say (no mallinfo2)."""
    libc_ = ctypes.CDLL(None)
    libc_.malloc.restype, libc_.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]
    libc_.free.argtypes = [ctypes.c_void_p]
    before = _mallinfo()
    if before is None:
        return None
    block = libc_.malloc(max(PROBE_BYTES, int(before.fordblks) + PROBE_BYTES))
    after = _mallinfo()
    libc_.free(block)
    return after is not None and after.hblks > before.hblks


def in_effect(requested: str | None) -> dict[str, Any]:
    """What this process' malloc does now, read from glibc itself after training: the variables
    it started with, whether a large block is mapped (large_block_mapped), and the blocks it
    holds by mmap and in its heaps. Under `retain` a block larger than a thread's heap, asked for
    on another thread, is still mapped (glibc's fallback: TensorFlow's fastText held one of
    1 GiB), so the blocks held describe the run and the probe decides the mode."""
    mode = requested or DEFAULT
    info = _mallinfo()
    return {
        "mode": mode,
        "libc": libc(),
        "variables": started_with(),
        "large_block_mapped": large_block_mapped(),
        "mapped_blocks": None if info is None else int(info.hblks),
        "mapped_mib": None if info is None else round(info.hblkhd / 2**20, 3),
        "heap_mib": None if info is None else round(info.arena / 2**20, 3),
    }


def check(report: dict[str, Any]) -> None:
    """AllocatorError where the mode asked for is not the one in effect: the process must have
    started with the mode's variables and no others, and glibc must map a large block under the
    default and keep it in the heap under `retain`."""
    mode, started = report["mode"], report["variables"]
    if started != VARIABLES[mode]:
        raise AllocatorError(
            f"backend.allocator={mode} requested, the worker started with {started or 'none'} "
            f"of glibc's variables"
        )
    mapped = report.get("large_block_mapped")
    if mapped is not None and mapped != (mode == DEFAULT):
        raise AllocatorError(
            f"backend.allocator={mode} requested, and glibc "
            f"{'mapped' if mapped else 'did not map'} a block larger than its free memory: its "
            "variables did not take effect"
        )


def flag(
    resources: dict[str, Any], report: dict[str, Any] | None, share: float, churns: bool = True
) -> str | None:
    """The record's flag of a run whose training steps spent at least `share` of their CPU time
    in the kernel (measure.kernel_share_flag) while glibc mapped its large blocks (the default
    mode, glibc's probe mapping a large block), on a backend whose runtime gives a step's
    buffers back to malloc every step (`churns`: the registry's faults_step_buffers): the
    likely cause, and the setting to compare. None under `retain`, under another C library,
    below the share, or for a runtime that keeps its buffers: TensorFlow's MLP spent 6.7% of
    its steps in the kernel, and 7.4% under `retain`, its step unchanged (1.005x)."""
    if not churns:
        return None
    cpu = resources.get("cpu_time_training_steps_s") or 0.0
    kernel = resources.get("system_time_training_steps_s") or 0.0
    maps = bool(report) and report.get("mode") == DEFAULT and report.get("large_block_mapped")
    if not maps or cpu <= 0:
        return None
    if kernel / cpu < share:
        return None
    faults = int(resources.get("minor_faults_training_steps") or 0)
    return (
        f"{PAGE_FAULTS_FLAG} the training steps spent {kernel / cpu:.1%} of their CPU time in the "
        f"kernel, with {faults:,} minor page faults, while glibc's malloc mapped its large "
        "blocks and unmapped them when freed (so each step faults them in again); "
        "backend.allocator=retain keeps them, and a sweep over backend.allocator=default,retain "
        "measures what it changes"
    )
