"""backend.allocator: glibc's malloc variables reach the worker at its start, are read back from
glibc after training, and a mode not in effect fails the run (frameworks/allocator.py)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from frameworks import allocator, settings
from twinbench.config import inherited_env
from twinbench.config.spec import ConfigError, build_spec

RETAIN = allocator.VARIABLES["retain"]


def _report(mode: str, variables: dict[str, str], mapped: int, probe: bool | None = None) -> dict:
    """A read-back; the probe's answer is the mode's own unless `probe` says otherwise."""
    return {"mode": mode, "libc": "glibc 2.36", "variables": variables,
            "large_block_mapped": mode == "default" if probe is None else probe,
            "mapped_blocks": mapped, "mapped_mib": 1.0 * mapped, "heap_mib": 10.0}  # fmt: skip


def test_retain_turns_mmap_off_and_trimming_off_in_the_workers_environment(compose):
    cfg = compose("backend=torch", "backend.allocator=retain")["backend"]
    env = settings.environment(cfg)
    assert env["MALLOC_MMAP_MAX_"] == "0"
    assert int(env["MALLOC_TRIM_THRESHOLD_"]) >= 2**36  # above any memory here: never trims
    assert not set(RETAIN) & set(settings.environment(compose("backend=torch")["backend"]))


def test_a_mode_that_did_not_take_effect_fails_the_run():
    allocator.check(_report("retain", RETAIN, 0))
    allocator.check(_report("default", {}, 7))
    # A block larger than a thread's heap is mapped under retain too: glibc's fallback
    allocator.check(_report("retain", RETAIN, 1))
    with pytest.raises(allocator.AllocatorError, match="mapped a block larger"):
        allocator.check(_report("retain", RETAIN, 0, probe=True))
    with pytest.raises(allocator.AllocatorError, match="did not map a block larger"):
        allocator.check(_report("default", {}, 0, probe=False))
    with pytest.raises(allocator.AllocatorError, match="started with none"):
        allocator.check(_report("retain", {}, 0))  # set after glibc had read its variables
    with pytest.raises(allocator.AllocatorError, match="requested"):
        allocator.check(_report("default", RETAIN, 0))


def _read_back_in_a_process(env: dict[str, str]) -> dict:
    """in_effect() in a fresh interpreter that allocates 64 MiB and frees it, started with
    `env` on top of an environment without glibc's variables."""
    code = (
        "import json, os, numpy as np\n"
        "from frameworks import allocator\n"
        "os.environ.update(allocator.VARIABLES['retain'])  # too late for glibc: ignored\n"
        "x = np.ones(2**23); y = np.ones(2**20)\n"
        "del x\n"
        "print(json.dumps(allocator.in_effect('retain')))\n"
    )
    base = {k: v for k, v in os.environ.items() if k not in RETAIN}
    out = subprocess.run([sys.executable, "-c", code], env={**base, **env}, check=True,
                         capture_output=True, text=True).stdout  # fmt: skip
    return json.loads(out.strip().splitlines()[-1])


def test_the_probe_is_mapped_under_the_default_even_with_a_large_free_chunk_in_the_heap():
    """A heap holding a free chunk of 64 MiB (the 48 MiB probe of the first form came from such a
    chunk in a torch CNN's worker, and its default run failed): the probe asks for more."""
    code = (
        "import ctypes, json\n"
        "from frameworks import allocator\n"
        "libc = ctypes.CDLL(None)\n"
        "libc.malloc.restype, libc.malloc.argtypes = ctypes.c_void_p, [ctypes.c_size_t]\n"
        "libc.free.argtypes = [ctypes.c_void_p]\n"
        "small = [libc.malloc(2**16) for _ in range(1024)]  # 64 MiB of heap chunks\n"
        "fence = libc.malloc(100 * 2**10)  # from the top, above them: freed, they stay\n"
        "for p in small: libc.free(p)\n"
        "print(json.dumps(allocator.in_effect('default')))\n"
    )
    base = {k: v for k, v in os.environ.items() if k not in RETAIN}
    out = subprocess.run([sys.executable, "-c", code], env=base, check=True,
                         capture_output=True, text=True).stdout  # fmt: skip
    found = json.loads(out.strip().splitlines()[-1])
    assert found["heap_mib"] >= 64  # the freed chunks are there, in the heap
    assert found["large_block_mapped"] is True
    allocator.check(found)


def test_the_read_back_is_glibcs_own_not_the_processes_environment():
    started = _read_back_in_a_process(RETAIN)
    assert started["variables"] == RETAIN and started["mapped_blocks"] == 0
    assert started["large_block_mapped"] is False
    allocator.check(started)
    # Variables set inside the process reach os.environ but not glibc, and the read-back says
    # so three times: no variable at the start, the 8 MiB array still mapped, and the probe's
    # 48 MiB block mapped.
    late = _read_back_in_a_process({})
    assert late["variables"] == {} and late["mapped_blocks"] >= 1
    assert late["large_block_mapped"] is True
    with pytest.raises(allocator.AllocatorError):
        allocator.check(late)


def test_retain_is_refused_before_anything_runs_where_the_c_library_is_not_glibc(
    compose, monkeypatch
):
    monkeypatch.setattr(allocator, "libc", lambda: None)
    with pytest.raises(ConfigError, match=r"not glibc; use backend\.allocator=default"):
        build_spec(compose("backend=tensorflow", "backend.allocator=retain"))
    build_spec(compose("backend=tensorflow"))  # the default needs nothing of the C library


def test_the_shells_malloc_variables_are_refused_naming_the_setting():
    with pytest.raises(ConfigError, match=r"backend\.allocator=retain"):
        inherited_env.check({"MALLOC_MMAP_MAX_": "0"})


# ------------------------------------------------------------------ the record's flag

STEPS = {"cpu_time_training_steps_s": 10.0, "system_time_training_steps_s": 0.8,
         "minor_faults_training_steps": 45770}  # fmt: skip


def test_steps_in_the_kernel_under_mapped_blocks_are_flagged_with_the_setting_to_compare():
    line = allocator.flag(STEPS, _report("default", {}, 12), share=0.05)
    assert line is not None and line.startswith("page faults:")
    assert "8.0% of their CPU time in the kernel, with 45,770 minor page faults" in line
    assert "backend.allocator=default,retain" in line


def test_no_page_fault_flag_under_retain_without_mapped_blocks_or_below_the_share():
    assert allocator.flag(STEPS, _report("retain", RETAIN, 0), share=0.05) is None
    not_glibc = {**_report("default", {}, 0), "libc": None, "large_block_mapped": None}
    assert allocator.flag(STEPS, not_glibc, share=0.05) is None
    assert allocator.flag(STEPS, _report("default", {}, 12), share=0.10) is None
    assert allocator.flag(STEPS, None, share=0.05) is None  # a record from before the setting
    assert allocator.flag({}, _report("default", {}, 12), share=0.05) is None  # no CPU time
    # a runtime that keeps its step buffers: its kernel time is not malloc's to give back
    assert allocator.flag(STEPS, _report("default", {}, 12), share=0.05, churns=False) is None


def test_the_worker_flags_a_run_whose_steps_faulted(compose):
    from twinbench.worker.assemble import run_flags

    spec = build_spec(compose("backend=torch", "model=mlp", "cpus=1"))
    in_effect = {"allocator": _report("default", {}, 12)}
    flags = run_flags(spec, None, None, (None, in_effect), STEPS)
    assert [f for f in flags if f.startswith("page faults:")]
    quiet = {**STEPS, "system_time_training_steps_s": 0.1}  # 1%: below measure.kernel_share_flag
    assert not [f for f in run_flags(spec, None, None, (None, in_effect), quiet)
                if f.startswith("page faults:")]  # fmt: skip
    # TensorFlow's MLP spent 6.7% of its steps in the kernel with or without retain: not flagged
    tf = build_spec(compose("backend=tensorflow", "model=mlp", "cpus=1"))
    assert not [f for f in run_flags(tf, None, None, (None, in_effect), STEPS)
                if f.startswith("page faults:")]  # fmt: skip
