"""Tiny files in the real datasets' exact formats, made here (the real ones are not downloaded).

- mnist.npz: np.savez of uint8 x (N, 28, 28) and uint8 y (N,), keys x_train/y_train/x_test/y_test.
- cifar-10-python.tar.gz: gzip tar of cifar-10-batches-py/{data_batch_1..5, test_batch,
  batches.meta}, each a Python 2 protocol-2 pickle (str written as byte strings, numpy 1.x's
  numpy.core.multiarray._reconstruct), as the real batches are; rows are CHW uint8, 3072 wide.
- imdb.npz: object arrays of Python lists of word ranks (1 = most frequent) and int64 labels.
- nietzsche.txt: utf-8 text with capitals and a few non-ASCII letters.
Plus payloads that run code when unpickled by a plain unpickler, for the safety tests.
"""

from __future__ import annotations

import hashlib
import io
import pickle
import struct
import tarfile
from typing import ClassVar

import numpy as np

_RECONSTRUCT = np.zeros(0).__reduce__()[0]


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def mnist_npz(n_train: int = 12, n_test: int = 6, seed: int = 0) -> bytes:
    rng = np.random.default_rng(seed)
    buf = io.BytesIO()
    np.savez(
        buf,
        x_train=rng.integers(0, 256, (n_train, 28, 28), dtype=np.uint8),
        y_train=(np.arange(n_train) % 10).astype(np.uint8),
        x_test=rng.integers(0, 256, (n_test, 28, 28), dtype=np.uint8),
        y_test=(np.arange(n_test) % 10).astype(np.uint8),
    )
    return buf.getvalue()


class Py2Pickler(pickle._Pickler):
    """Writes what Python 2's cPickle wrote for CIFAR-10: protocol 2, every str as a byte
    string (BINSTRING), numpy's reconstructor under its numpy 1.x module name."""

    dispatch: ClassVar[dict] = dict(pickle._Pickler.dispatch)

    def _save_byte_string(self, obj: bytes | str) -> None:
        data = obj if isinstance(obj, bytes) else obj.encode("latin-1")
        if len(data) < 256:
            self.write(pickle.SHORT_BINSTRING + bytes([len(data)]) + data)
        else:
            self.write(pickle.BINSTRING + struct.pack("<i", len(data)) + data)
        self.memoize(obj)

    dispatch[bytes] = _save_byte_string
    dispatch[str] = _save_byte_string

    def save_global(self, obj, name=None) -> None:
        if obj is _RECONSTRUCT:
            self.write(pickle.GLOBAL + b"numpy.core.multiarray\n_reconstruct\n")
            self.memoize(obj)
            return
        super().save_global(obj, name)


def py2_pickle(obj) -> bytes:
    buf = io.BytesIO()
    Py2Pickler(buf, protocol=2).dump(obj)
    return buf.getvalue()


def cifar_batches(n_per_batch: int = 4, seed: int = 0) -> dict[str, dict]:
    """The batches' contents: name -> dict as the real pickles hold it (str keys)."""
    rng = np.random.default_rng(seed)
    names = [f"data_batch_{i}" for i in range(1, 6)] + ["test_batch"]
    batches = {}
    for b, name in enumerate(names):
        labels = [int(v) for v in (np.arange(n_per_batch) + b) % 10]
        batches[name] = {
            "batch_label": f"{name} of tiny",
            "labels": labels,
            "data": rng.integers(0, 256, (n_per_batch, 3072), dtype=np.uint8),
            "filenames": [f"img_{b}_{i}.png" for i in range(n_per_batch)],
        }
    return batches


def tar_gz(members: dict[str, bytes]) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz") as tar:
        for name, data in members.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


def cifar_tar_gz(batches: dict[str, dict] | None = None, replace: dict | None = None) -> bytes:
    """The archive; `replace` swaps a member's pickled bytes (e.g. for a malicious one)."""
    batches = batches if batches is not None else cifar_batches()
    members = {f"cifar-10-batches-py/{n}": py2_pickle(b) for n, b in batches.items()}
    members["cifar-10-batches-py/batches.meta"] = py2_pickle(
        {"label_names": ["airplane", "automobile", "bird", "cat", "deer", "dog"], "num_vis": 3072}
    )
    for name, data in (replace or {}).items():
        members[f"cifar-10-batches-py/{name}"] = data
    return tar_gz(members)


def imdb_npz(x_train: list[list[int]], y_train, x_test: list[list[int]], y_test) -> bytes:
    def ragged(seqs: list[list[int]]) -> np.ndarray:
        out = np.empty(len(seqs), dtype=object)
        for i, s in enumerate(seqs):
            out[i] = list(s)
        return out

    buf = io.BytesIO()
    np.savez(
        buf,
        x_train=ragged(x_train),
        y_train=np.asarray(y_train, dtype=np.int64),
        x_test=ragged(x_test),
        y_test=np.asarray(y_test, dtype=np.int64),
    )
    return buf.getvalue()


def imdb_default() -> bytes:
    """Six train and four test reviews of varied lengths, ids up to past the 20,000 cut."""
    rng = np.random.default_rng(5)
    seqs = [list(rng.integers(1, 25_000, size=n)) for n in (5, 9, 1, 30, 7, 12, 3, 8, 20, 4)]
    seqs = [[int(v) for v in s] for s in seqs]
    return imdb_npz(seqs[:6], [0, 1, 1, 0, 1, 0], seqs[6:], [1, 0, 0, 1])


NIETZSCHE_SAMPLE = (
    "PREFACE\n\n\nA Tiny Corpus for tests--written here, not copied.\n"
    "It has Capitals, punctuation; and a few letters like \u00e4, \u00e9 and \u00e6.\n"
    "WHAT follows is the same sentence, again: the Loader must lowercase it all!\n"
) * 3


def nietzsche_txt() -> bytes:
    return NIETZSCHE_SAMPLE.encode("utf-8")


class _CreatesFile:
    """Unpickled by a plain unpickler, this calls open(path, 'w'): the file appears."""

    def __init__(self, path: str) -> None:
        self.path = path

    def __reduce__(self):
        return (open, (self.path, "w"))


def code_running_pickle(marker: str) -> bytes:
    """A CIFAR-batch-shaped pickle whose 'data' is an open(marker, 'w') call."""
    return py2_pickle({"data": _CreatesFile(marker), "labels": [0]})


def imdb_npz_with_pickle(payload: bytes) -> bytes:
    """An imdb.npz whose x_train.npy is an object-array header followed by `payload`."""
    import zipfile

    npy = io.BytesIO()
    np.lib.format.write_array_header_1_0(
        npy, {"descr": "|O", "fortran_order": False, "shape": (1,)}
    )
    npy.write(payload)
    honest = io.BytesIO(imdb_default())
    out = io.BytesIO()
    with zipfile.ZipFile(honest) as src, zipfile.ZipFile(out, "w") as dst:
        for member in src.namelist():
            data = npy.getvalue() if member == "x_train.npy" else src.read(member)
            dst.writestr(member, data)
    return out.getvalue()
