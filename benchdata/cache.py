"""The synthetic data sets kept on disk between runs, so each fresh worker does not make them again.

Every measured run is a fresh process (the budget is set before the framework loads), and each
one generated its data from the seed: 2-8 s of numpy per run on the Zen 3 (CIFAR-10's 50,000
images, fastText's bigram vocabulary), paid again by every run of a sweep. The data phase is
outside the timed steps, so this changes no figure; it shortens sweeps and the test suite.

An entry is one data set as the worker receives it: the four arrays as .npy files and an
`entry.json` holding the Dataset's info and a CRC-32 of each array. Its name is a hash of the
data set, the seed, the view and the source of every module of this package, so a change to a
generator or a view makes a new entry instead of reading a stale one; entries sit in a folder
per version of that source, and writing one removes the other versions' folders. An entry is
written into a temporary folder and renamed into place (two workers making the same entry at
once both succeed, one rename wins), and read back only when every array's CRC matches: a
truncated or altered file is made again, never trained on. A cache that cannot be written (a
full disk, a read-only folder) costs only the time: the run goes on with the data it generated.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from benchdata.dataset import Dataset

ARRAYS = ("x_train", "y_train", "x_test", "y_test")
ENTRY_FILE = "entry.json"
PACKAGE_DIR = Path(__file__).resolve().parent


def default_dir() -> Path:
    """$XDG_CACHE_HOME (or ~/.cache), then twinbench/data: beside the probes' cache."""
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "twinbench" / "data"


def _code_digest() -> str:
    """The source of every module of benchdata: a changed generator is a different data set."""
    digest = hashlib.sha256()
    for path in sorted(PACKAGE_DIR.glob("*.py")):
        digest.update(path.name.encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


VERSION_PREFIX = "v-"  # one folder per version of the generators' source


def entry_name(name: str, seed: int, view: Any) -> str:
    """The path of a data set's entry below the cache folder: the generators' version, then
    the data set."""
    what = json.dumps({"name": name, "seed": seed, "view": view}, sort_keys=True, default=str)
    code = _code_digest()
    key = hashlib.sha256((what + code).encode()).hexdigest()[:20]
    return f"{VERSION_PREFIX}{code[:12]}/{name}-{key}"


def _drop_other_versions(version: Path) -> None:
    """Entries made by other versions of the generators: no run of this checkout reads them, and
    each version's sets take about 1.5 GB, so an upgrade would otherwise leave them behind."""
    for other in version.parent.glob(f"{VERSION_PREFIX}*"):
        if other != version and other.is_dir():
            shutil.rmtree(other, ignore_errors=True)


def _crc(array: np.ndarray) -> int:
    return zlib.crc32(np.ascontiguousarray(array).view(np.uint8).reshape(-1))


def read(entry: Path, name: str) -> Dataset | None:
    """The data set kept in `entry`, or None when it is missing or does not match its CRCs."""
    try:
        meta = json.loads((entry / ENTRY_FILE).read_text())
        arrays = {a: np.load(entry / f"{a}.npy", allow_pickle=False) for a in ARRAYS}
    except (OSError, ValueError, KeyError):
        return None
    if any(_crc(arrays[a]) != meta["crc32"].get(a) for a in ARRAYS):
        return None
    return Dataset(name=name, **arrays, info=meta["info"])


def write(entry: Path, data: Dataset) -> bool:
    """Keep `data` as `entry` (atomically); False when it cannot be kept (the run goes on)."""
    arrays = {a: getattr(data, a) for a in ARRAYS}
    if any(a.dtype == object for a in arrays.values()):
        return False  # .npy would need pickle; such a data set is made every time
    try:
        meta = json.dumps({"info": data.info, "crc32": {a: _crc(v) for a, v in arrays.items()}})
    except TypeError:
        return False  # info that JSON cannot hold would not come back the same
    try:
        entry.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{entry.name}.", dir=entry.parent))
    except OSError:
        return False
    try:
        for a, value in arrays.items():
            np.save(staging / f"{a}.npy", value, allow_pickle=False)
        (staging / ENTRY_FILE).write_text(meta)  # written last: an entry without it is unread
        shutil.rmtree(entry, ignore_errors=True)  # a damaged entry read as None just before
        os.rename(staging, entry)
        _drop_other_versions(entry.parent)
        return True
    except OSError:  # a full disk, or another worker's rename won: either way, not ours to keep
        return False
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def load_or_generate(
    name: str, seed: int, view: Any, generate: Callable[[], Dataset], folder: Path | None
) -> tuple[Dataset, str]:
    """The data set from the cache in `folder`, or generated (and kept there); with how it
    came: 'cache', 'generated and kept', 'generated' (not kept), or 'generated (cache off)'."""
    if folder is None:
        return generate(), "generated (cache off)"
    entry = Path(folder).expanduser() / entry_name(name, seed, view)
    found = read(entry, name)
    if found is not None:
        return found, "cache"
    data = generate()
    return data, "generated and kept" if write(entry, data) else "generated"
