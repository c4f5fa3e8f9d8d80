"""Machine settings recorded with every result: sysfs choices are read as the kernel marks them."""

from __future__ import annotations

from twinbench.machine import environment, machine_state


def test_the_bracketed_sysfs_choice_is_the_setting(tmp_path):
    f = tmp_path / "enabled"
    f.write_text("always [madvise] never\n")
    assert machine_state._selected(f) == "madvise"
    f.write_text("performance\n")
    assert machine_state._selected(f) == "performance"
    assert machine_state._selected(tmp_path / "missing") is None


def test_every_result_environment_carries_the_machine_state():
    state = environment.describe()["machine_state"]
    assert set(state) >= {
        "transparent_hugepages",
        "numpy_madvise_hugepage",
        "allocator",
        "ld_preload",
    }
    assert state["allocator"] in {"glibc", "unknown", *machine_state.ALLOCATORS}
