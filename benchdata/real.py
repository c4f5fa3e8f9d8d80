"""The real datasets, from the files Keras' loaders use, parsed the way Keras parses them.

Every loader reads its file through FileStore.read (SHA-256 verified, see download.py) and parses
the verified bytes in memory with numpy and the standard library only, so both backends get
identical arrays and no framework downloader runs.

Outputs match the synthetic generators' forms exactly (shapes per sample, dtypes):
- mnist: x float32 in [0, 1], view 'flat' (N, 784) or 'image' (N, 28, 28, 1); y int64 (N,).
- cifar10: x float32 in [0, 1], NHWC (N, 32, 32, 3); y int64 (N,).
- imdb: raw reviews as benchdata.imdb.ImdbRaw (Keras' start/offset conventions, shuffled as
  Keras does), then the model's view (num_words cut, bigrams, padding) shared with synthetic data.
- nietzsche: the text as benchdata.nietzsche.NietzscheRaw, then the shared view (lowercasing,
  40-char windows, one-hot or ids), as the synthetic text goes through it.
"""

from __future__ import annotations

import io
import itertools
import pickle
import tarfile
import zipfile
from collections.abc import Mapping
from typing import Any

import numpy as np

from benchdata import Dataset, imdb, nietzsche
from benchdata.download import DataFormatError, FileStore, VerifiedFile
from benchdata.imdb import ImdbRaw
from benchdata.nietzsche import NietzscheRaw
from benchdata.real_files import FILES
from benchdata.safe_pickle import load_npz, restricted_loads
from benchdata.text import Sequences

# keras.datasets.imdb.load_data's conventions (the same constants as benchdata.imdb's).
IMDB_START_CHAR = imdb.START  # 1: marks the start of every review
IMDB_OOV_CHAR = imdb.OOV  # 2: replaces words outside the num_words most frequent (in the view)
IMDB_INDEX_FROM = imdb.INDEX_FROM  # 3: file ids are frequency ranks from 1; 0..2 are reserved
IMDB_SHUFFLE_SEED = 113  # Keras shuffles train, then test, with one RandomState(113)

CIFAR10_DIR = "cifar-10-batches-py"
CIFAR10_TRAIN = tuple(f"data_batch_{i}" for i in range(1, 6))
CIFAR10_TEST = "test_batch"


def _info(view: str | None, *files: VerifiedFile, **extra: Any) -> dict[str, Any]:
    return {
        "source": "real",
        "view": view,
        "files": {f.name: f.sha256 for f in files},
        "cache_dir": str(files[0].path.parent),
        **extra,
    }


def _bad(f: VerifiedFile, what: str) -> DataFormatError:
    return DataFormatError(f"{f.path} (SHA-256 verified) is not in the expected format: {what}")


# --- MNIST -----------------------------------------------------------------------------------


def load_mnist(view: str | None, store: FileStore) -> Dataset:
    """Keras' mnist.npz: uint8 images (N, 28, 28) and uint8 labels; scaled by 1/255 as the
    examples do. view 'flat' (default, as the synthetic generator) or 'image' (NHWC)."""
    view = view or "flat"
    if view not in ("flat", "image"):
        raise ValueError(f"unknown MNIST view '{view}'; use 'flat' or 'image'")
    f = store.read(FILES["mnist"])
    try:
        with np.load(io.BytesIO(f.data), allow_pickle=False) as npz:
            x_train, y_train, x_test, y_test = (
                npz[k] for k in ("x_train", "y_train", "x_test", "y_test")
            )
    except (KeyError, ValueError, OSError, zipfile.BadZipFile) as exc:
        raise _bad(f, f"{type(exc).__name__}: {exc}") from None
    shape = (-1, 784) if view == "flat" else (-1, 28, 28, 1)
    for x, y in ((x_train, y_train), (x_test, y_test)):
        if x.dtype != np.uint8 or x.shape[1:] != (28, 28) or y.shape != (len(x),):
            raise _bad(f, f"images {x.dtype}{x.shape}, labels {y.dtype}{y.shape}")
    return Dataset(
        name="mnist",
        x_train=x_train.reshape(shape).astype(np.float32) / 255.0,
        y_train=y_train.astype(np.int64),
        x_test=x_test.reshape(shape).astype(np.float32) / 255.0,
        y_test=y_test.astype(np.int64),
        info=_info(view, f, classes=10),
    )


# --- CIFAR-10 --------------------------------------------------------------------------------


def load_cifar10(view: str | None, store: FileStore) -> Dataset:
    """The python batches of cifar-10-python.tar.gz, read from the archive in memory (nothing is
    extracted to disk), unpickled only after the archive's SHA-256 matched and then only with
    RestrictedUnpickler. Rows are CHW uint8; the output is NHWC float32 in [0, 1], as the
    Keras example feeds it with channels_last."""
    if view not in (None, "image"):
        raise ValueError(f"unknown CIFAR-10 view '{view}'; use 'image'")
    f = store.read(FILES["cifar10"])
    wanted = {f"{CIFAR10_DIR}/{name}" for name in (*CIFAR10_TRAIN, CIFAR10_TEST)}
    members: dict[str, bytes] = {}
    try:
        # One sequential pass: looking members up by name would re-decompress the archive.
        with tarfile.open(fileobj=io.BytesIO(f.data), mode="r:gz") as tar:
            for member in tar:
                if member.name in wanted and member.isfile():
                    members[member.name] = tar.extractfile(member).read()
    except (tarfile.TarError, EOFError, OSError) as exc:
        raise _bad(f, f"{type(exc).__name__}: {exc}") from None
    missing = sorted(wanted - members.keys())
    if missing:
        raise _bad(f, f"no regular file {missing[0]} in the archive")
    train = [_cifar_batch(f, name, members) for name in CIFAR10_TRAIN]
    test = [_cifar_batch(f, CIFAR10_TEST, members)]

    def images(batches: list[tuple[np.ndarray, np.ndarray]]) -> np.ndarray:
        chw = np.concatenate([x for x, _ in batches]).reshape(-1, 3, 32, 32)
        nhwc = chw.transpose(0, 2, 3, 1).astype(np.float32, order="C")
        nhwc /= 255.0
        return nhwc

    return Dataset(
        name="cifar10",
        x_train=images(train),
        y_train=np.concatenate([y for _, y in train]),
        x_test=images(test),
        y_test=test[0][1],
        info=_info(view or "image", f, classes=10),
    )


def _cifar_batch(
    f: VerifiedFile, name: str, members: dict[str, bytes]
) -> tuple[np.ndarray, np.ndarray]:
    path = f"{CIFAR10_DIR}/{name}"
    raw = members[path]
    try:
        # encoding='bytes': the batches are Python 2 pickles; their str keys arrive as bytes.
        batch = restricted_loads(raw, encoding="bytes")
    except (pickle.UnpicklingError, EOFError, ValueError, TypeError) as exc:
        raise _bad(f, f"{path}: {exc}") from None
    data = batch.get(b"data") if isinstance(batch, dict) else None
    labels = batch.get(b"labels") if isinstance(batch, dict) else None
    if (
        not isinstance(data, np.ndarray)
        or data.dtype != np.uint8
        or data.ndim != 2
        or data.shape[1] != 3 * 32 * 32
        or not isinstance(labels, list)
        or len(labels) != len(data)
    ):
        raise _bad(f, f"{path} lacks uint8 'data' rows of 3072 and a matching 'labels' list")
    try:
        y = np.array(labels, dtype=np.int64)
    except (TypeError, ValueError, OverflowError) as exc:
        raise _bad(f, f"{path} labels: {exc}") from None
    return data, y


# --- IMDb ------------------------------------------------------------------------------------


def imdb_raw(store: FileStore) -> tuple[ImdbRaw, dict[str, Any]]:
    """Raw IMDb as keras.datasets.imdb.load_data(num_words=None) returns it, as benchdata.imdb's
    ImdbRaw (flat int32 tokens + offsets), and the info to record.

    Same steps as Keras: shuffle train, then test, with one RandomState(113); prepend the start
    id 1 and add index_from 3 to every word rank. The num_words cut (ids >= num_words become the
    oov id 2) belongs to the model's view (benchdata.imdb.view), shared with synthetic data.
    """
    f = store.read(FILES["imdb"])
    try:
        arrays = load_npz(f.data)
        x_train, y_train, x_test, y_test = (
            arrays[k] for k in ("x_train", "y_train", "x_test", "y_test")
        )
    except (
        KeyError,
        ValueError,
        OSError,
        EOFError,
        zipfile.BadZipFile,
        pickle.UnpicklingError,  # includes a refused global
    ) as exc:
        raise _bad(f, f"{type(exc).__name__}: {exc}") from None
    for x, y in ((x_train, y_train), (x_test, y_test)):
        if x.ndim != 1 or y.shape != x.shape:
            raise _bad(f, f"sequences {x.shape} vs labels {y.shape}")

    rng = np.random.RandomState(IMDB_SHUFFLE_SEED)
    order = np.arange(len(x_train))
    rng.shuffle(order)
    x_train, y_train = x_train[order], y_train[order]
    order = np.arange(len(x_test))
    rng.shuffle(order)  # the same generator continues, as in Keras
    x_test, y_test = x_test[order], y_test[order]

    raw = ImdbRaw(
        train=_keras_ids(f, x_train),
        y_train=y_train.astype(np.int64),
        test=_keras_ids(f, x_test),
        y_test=y_test.astype(np.int64),
    )
    info = _info(
        None,
        f,
        start_char=IMDB_START_CHAR,
        oov_char=IMDB_OOV_CHAR,
        index_from=IMDB_INDEX_FROM,
        shuffle_seed=IMDB_SHUFFLE_SEED,
    )
    return raw, info


def _keras_ids(f: VerifiedFile, sequences: np.ndarray) -> Sequences:
    """Start id and offset on one flat array (not 25,000 Python lists)."""
    lengths = np.fromiter((len(s) for s in sequences), dtype=np.int64, count=len(sequences))
    try:
        ranks = np.fromiter(
            itertools.chain.from_iterable(sequences), dtype=np.int64, count=int(lengths.sum())
        )
    except (TypeError, ValueError, OverflowError) as exc:
        raise _bad(f, f"word ids are not integers: {exc}") from None
    # Keras checks nothing here; only what would wrap around in int32 is refused.
    if len(ranks) and (ranks.min() < 0 or ranks.max() > np.iinfo(np.int32).max - IMDB_INDEX_FROM):
        raise _bad(f, f"word ranks outside 0..2**31 - 4: {ranks.min()}..{ranks.max()}")
    starts = np.cumsum(lengths) - lengths
    tokens = np.insert(ranks + IMDB_INDEX_FROM, starts, IMDB_START_CHAR).astype(np.int32)
    return Sequences.from_lengths(tokens, lengths + 1)


def load_imdb(view: Mapping[str, Any] | None, store: FileStore) -> Dataset:
    """One model's inputs (benchdata.imdb.view: num_words cut, bigrams, padding) from the real
    reviews; `view` is the model's spec, as for the synthetic generator."""
    if not isinstance(view, Mapping):
        raise ValueError(
            f"IMDb needs a view spec ({', '.join(imdb.VIEW_KEYS)}), got {view!r}; "
            "benchdata.real.imdb_raw gives the raw sequences"
        )
    raw, info = imdb_raw(store)
    return imdb.view(raw, view, info)


# --- Nietzsche -------------------------------------------------------------------------------


def nietzsche_text(store: FileStore) -> tuple[str, dict[str, Any]]:
    """The corpus as Keras' lstm_text_generation example reads it, before its lower(): utf-8
    with universal newlines (io.open's default). Lowercasing is the view's `lowercase` key, so
    a model that keeps capitals gets them. Returns the text and the info to record."""
    f = store.read(FILES["nietzsche"])
    try:
        text = io.TextIOWrapper(io.BytesIO(f.data), encoding="utf-8").read()
    except UnicodeDecodeError as exc:
        raise _bad(f, f"not utf-8 text ({exc.reason} at byte {exc.start})") from None
    return text, _info(None, f)


def load_nietzsche(view: Mapping[str, Any] | None, store: FileStore) -> Dataset:
    """One model's character windows (benchdata.nietzsche.view: lowercase, windows, encoding)
    from the real text: trained on whole, validated on its tail (NietzscheRaw.from_text)."""
    if not isinstance(view, Mapping):
        raise ValueError(
            f"Nietzsche needs a view spec ({', '.join(nietzsche.VIEW_KEYS)}), got {view!r}; "
            "benchdata.real.nietzsche_text gives the raw text"
        )
    text, info = nietzsche_text(store)
    return nietzsche.view(NietzscheRaw.from_text(text), view, info)
