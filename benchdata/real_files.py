"""The real datasets' files and their pinned SHA-256: the one table every download is checked by.

The files are the ones the 2017 benchmark's Keras examples loaded, from the same URLs, so a Keras
cache (~/.keras/datasets) is reused as it is. Where Keras pins a checksum, this table holds the
same one; per-file overrides (data.sha256.<key>) exist for tests and for pinning a new copy.

Provenance of each checksum:
- mnist, imdb: the file_hash that keras.datasets.mnist / keras.datasets.imdb pass to get_file
  (keras/src/datasets/mnist.py and imdb.py, Keras 3.15; the same values as in tf.keras 2.x).
- cifar10: the file_hash in keras/src/datasets/cifar10.py (Keras 3.15); torchvision's prototype
  CIFAR-10 resource pins the same SHA-256. (The CIFAR page itself publishes only the MD5
  c58f30108f718f92721af3b95e74349a.)
- nietzsche: Keras' lstm_text_generation example downloads it without a hash, and neither Keras
  nor Amazon publishes one. The pinned value is that of the public copy in the GitHub repository
  cvasii23/nietzsche (600,901 bytes), which matches what the Keras example prints for its file:
  corpus length 600,893 characters after utf-8 decoding, 57 distinct after lowercasing (see
  NIETZSCHE_CHARS and NIETZSCHE_VOCAB below). A different copy is refused; pin it with
  data.sha256.nietzsche=... if you have confirmed it yourself.

Each file's max_bytes is its size at those URLs: a download is never allowed to bring more.
"""

from __future__ import annotations

from benchdata.download import RemoteFile

KERAS_DATASETS = "https://storage.googleapis.com/tensorflow/tf-keras-datasets/"

FILES: dict[str, RemoteFile] = {
    "mnist": RemoteFile(
        key="mnist",
        filename="mnist.npz",
        url=KERAS_DATASETS + "mnist.npz",
        sha256="731c5ac602752760c8e48fbffcf8c3b850d9dc2a2aedcf2cc48468fc17b673d1",
        max_bytes=11_490_434,
    ),
    "cifar10": RemoteFile(
        key="cifar10",
        filename="cifar-10-python.tar.gz",
        url="https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz",
        sha256="6d958be074577803d12ecdefd02955f39262c83c16fe9348329d7fe0b5c001ce",
        max_bytes=170_498_071,
        # Keras 3 keeps the archive as '<dirname>_archive'; Keras 2 / tf.keras as
        # 'cifar-10-batches-py.tar.gz'. Same bytes, same checksum.
        also_cached_as=("cifar-10-batches-py-target_archive", "cifar-10-batches-py.tar.gz"),
    ),
    "imdb": RemoteFile(
        key="imdb",
        filename="imdb.npz",
        url=KERAS_DATASETS + "imdb.npz",
        sha256="69664113be75683a8fe16e3ed0ab59fda8886cb3cd7ada244f7d9544e4676b9f",
        max_bytes=17_464_789,
    ),
    "nietzsche": RemoteFile(
        key="nietzsche",
        filename="nietzsche.txt",
        url="https://s3.amazonaws.com/text-datasets/nietzsche.txt",
        # Provenance: the cvasii23/nietzsche copy, whose sizes match Keras' example output
        # (module docstring).
        sha256="9cb94a5f1f8d1359e2e018fa67306eba4ae03942b8c44643eececded39e096df",
        max_bytes=600_901,  # the pinned copy's size
    ),
}

# The real sets' documented sizes (Keras' docs; for Nietzsche, what Keras' example prints), so
# tests can hold the synthetic generators to them without the real files.
SIZES = {
    "mnist": {"train": 60_000, "test": 10_000},
    "cifar10": {"train": 50_000, "test": 10_000},
    "imdb": {"train": 25_000, "test": 25_000},
}
NIETZSCHE_CHARS = 600_893  # len(text) after utf-8 decoding and lower()
NIETZSCHE_VOCAB = 57  # len(set(text)): the one-hot width of the char-LSTM
NIETZSCHE_WINDOWS = 200_285  # 40-char windows every 3 chars: len(range(0, CHARS - 40, 3))
