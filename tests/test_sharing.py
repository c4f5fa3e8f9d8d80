"""How the suite shares two cores (tests/sharing.py): the serial tests' exclusive hold, and the
list of files that are serial throughout."""

from __future__ import annotations

import fcntl
from types import SimpleNamespace

import pytest

from tests import sharing


def _other_worker_could_start(run_dir) -> bool:
    """Whether a test on the other worker would get the lock now (a shared hold, not waiting)."""
    with (run_dir / "tests.lock").open("a") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except BlockingIOError:
            return False
        fcntl.flock(lock, fcntl.LOCK_UN)
        return True


@pytest.fixture
def two_workers(monkeypatch):
    monkeypatch.setenv("PYTEST_XDIST_WORKER", "gw0")
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    monkeypatch.setattr(sharing, "_kept_exclusive", None)


def test_a_serial_test_followed_by_another_passes_its_hold_on_and_the_last_releases_it(
    two_workers, tmp_path
):
    with sharing.machine_share(True, tmp_path, keep=True):
        assert not _other_worker_could_start(tmp_path)
    assert not _other_worker_could_start(tmp_path)  # between the two: still held
    with sharing.machine_share(True, tmp_path, keep=False):
        assert not _other_worker_could_start(tmp_path)
    assert _other_worker_could_start(tmp_path)
    with sharing.machine_share(True, tmp_path):
        pass
    assert _other_worker_could_start(tmp_path)  # without keep: released at once
    with sharing.machine_share(False, tmp_path):
        assert _other_worker_could_start(tmp_path)  # a shared test leaves room for the other


def test_a_kept_hold_is_let_go_if_a_shared_test_comes_next_after_all(two_workers, tmp_path):
    with sharing.machine_share(True, tmp_path, keep=True):
        pass
    with sharing.machine_share(False, tmp_path):
        assert _other_worker_could_start(tmp_path)


def _item(nodeid: str, module_serial: bool):
    marks = [pytest.mark.serial.mark] if module_serial else []
    return SimpleNamespace(nodeid=nodeid, module=SimpleNamespace(pytestmark=marks))


def test_serial_files_are_listed_exactly_when_their_module_is_marked_serial():
    listed = sharing.SERIAL_FILES[0]
    items = [
        _item(f"{listed}::a", False),  # listed, but its module lost the mark
        _item("tests/test_new.py::a", True),  # marked as a whole, not listed
        _item("tests/test_new.py::b", True),
        _item("tests/test_other.py::a", False),
    ]
    assert sharing.serial_files_mismatch(items) == [
        f"{listed} is listed but not serial as a whole",
        "tests/test_new.py is serial as a whole (pytestmark) but not listed",
    ]
    assert sharing.serial_files_mismatch([_item(f"{listed}::a", True)]) == []
