"""The synthetic data cache (benchdata/cache.py): a run reads exactly the arrays it would have
made, a damaged entry is made again rather than trained on, and a cache that cannot be written
costs only time."""

from __future__ import annotations

import numpy as np
import pytest

import benchdata
from benchdata import Dataset, cache


def _tiny(seed: int = 0) -> Dataset:
    rng = np.random.default_rng(seed)
    return Dataset(
        "tiny",
        rng.random((64, 8), dtype=np.float32),
        rng.integers(0, 10, 64),
        rng.random((16, 8), dtype=np.float32),
        rng.integers(0, 10, 16),
        info={"seed": seed, "dims": {"features": 8}},
    )


class Counted:
    """A generator that counts its calls."""

    def __init__(self, seed: int = 0) -> None:
        self.calls, self.seed = 0, seed

    def __call__(self) -> Dataset:
        self.calls += 1
        return _tiny(self.seed)


def _same(a: Dataset, b: Dataset) -> bool:
    arrays = all(np.array_equal(getattr(a, k), getattr(b, k)) for k in cache.ARRAYS)
    dtypes = all(getattr(a, k).dtype == getattr(b, k).dtype for k in cache.ARRAYS)
    return arrays and dtypes and a.info == b.info and a.name == b.name


def test_the_second_process_reads_the_arrays_the_first_made(tmp_path):
    make = Counted()
    first, how_first = cache.load_or_generate("tiny", 0, "flat", make, tmp_path)
    second, how_second = cache.load_or_generate("tiny", 0, "flat", make, tmp_path)
    assert (how_first, how_second) == ("generated and kept", "cache")
    assert make.calls == 1 and _same(first, _tiny()) and _same(second, _tiny())


def test_another_seed_view_or_generator_source_is_another_entry(tmp_path, monkeypatch):
    names = {
        cache.entry_name("tiny", 0, "flat"),
        cache.entry_name("tiny", 1, "flat"),
        cache.entry_name("tiny", 0, "image"),
        cache.entry_name("tiny", 0, {"maxlen": 80}),
        cache.entry_name("tiny", 0, {"maxlen": 400}),
    }
    assert len(names) == 5
    before = cache.entry_name("tiny", 0, "flat")
    monkeypatch.setattr(cache, "_code_digest", lambda: "a generator was edited")
    assert cache.entry_name("tiny", 0, "flat") != before


def test_an_entry_of_new_generators_removes_the_old_versions_entries(tmp_path, monkeypatch):
    cache.load_or_generate("tiny", 0, "flat", Counted(), tmp_path)
    cache.load_or_generate("tiny", 1, "flat", Counted(1), tmp_path)
    old = {p.parent for p in tmp_path.glob("*/*")}
    assert len(old) == 1  # one version, two entries
    monkeypatch.setattr(cache, "_code_digest", lambda: "an upgrade edited a generator")
    _, how = cache.load_or_generate("tiny", 0, "flat", Counted(), tmp_path)
    assert how == "generated and kept"
    assert not any(p.exists() for p in old)  # about 1.5 GB a version on a real machine
    assert len(list(tmp_path.glob("*/*"))) == 1


@pytest.mark.parametrize("damage", ["flip a byte", "truncate", "no entry.json"])
def test_a_damaged_entry_is_made_again_never_read(tmp_path, damage):
    cache.load_or_generate("tiny", 0, "flat", Counted(), tmp_path)
    entry = tmp_path / cache.entry_name("tiny", 0, "flat")
    array = entry / "x_train.npy"
    if damage == "flip a byte":
        raw = bytearray(array.read_bytes())
        raw[-5] ^= 0xFF  # inside the data, past the header: the shape still reads
        array.write_bytes(bytes(raw))
    elif damage == "truncate":
        array.write_bytes(array.read_bytes()[:-40])
    else:
        (entry / cache.ENTRY_FILE).unlink()
    make = Counted()
    data, how = cache.load_or_generate("tiny", 0, "flat", make, tmp_path)
    assert make.calls == 1 and how == "generated and kept" and _same(data, _tiny())
    assert _same(cache.read(entry, "tiny"), _tiny())  # and the entry is whole again


def test_a_folder_that_cannot_be_written_costs_only_time(tmp_path):
    blocked = tmp_path / "c"
    blocked.write_text("a file where the cache folder would be")  # as a read-only folder would
    data, how = cache.load_or_generate("tiny", 0, "flat", Counted(), blocked)
    assert how == "generated" and _same(data, _tiny())


def test_a_write_that_fails_midway_leaves_no_entry_and_no_staging(tmp_path, monkeypatch):
    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(cache.np, "save", full_disk)
    data, how = cache.load_or_generate("tiny", 0, "flat", Counted(), tmp_path)
    assert how == "generated" and _same(data, _tiny())
    left = list(tmp_path.rglob("*"))
    assert all(p.is_dir() and not p.name.startswith(".") for p in left)  # no file, no staging
    assert not list(tmp_path.glob("*/tiny-*"))  # and no entry


def test_a_real_generator_through_load_gives_the_same_data_from_the_cache(tmp_path):
    """mnist's generator, as the worker calls it: the cached copy is the data, bit for bit."""
    made = benchdata.load("mnist", "synthetic", 0, "flat")
    kept = benchdata.load("mnist", "synthetic", 0, "flat", synthetic_cache=tmp_path)
    read = benchdata.load("mnist", "synthetic", 0, "flat", synthetic_cache=tmp_path)
    assert (made.info["cache"], kept.info["cache"], read.info["cache"]) == (
        "generated (cache off)",
        "generated and kept",
        "cache",
    )
    for key in cache.ARRAYS:
        assert np.array_equal(getattr(made, key), getattr(read, key))
    assert {k: v for k, v in made.info.items() if k != "cache"} == {
        k: v for k, v in read.info.items() if k != "cache"
    }


def test_a_file_where_the_configured_cache_folder_must_be_is_refused_in_one_line(tmp_path):
    from twinbench.config import checks
    from twinbench.config.schema import ConfigError

    where = tmp_path / "cache"
    where.write_text("not a folder")
    config = {"measure": {"data_cache": True, "data_cache_dir": str(where)}}
    with pytest.raises(ConfigError, match=r"measure.data_cache_dir=.* is a file, not a directory"):
        checks.check_side_dirs(config)
    checks.check_side_dirs({"measure": {"data_cache": False, "data_cache_dir": str(where)}})
