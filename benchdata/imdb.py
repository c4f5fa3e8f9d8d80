"""IMDb reviews: the raw set in Keras' imdb.npz conventions, and the per-model views.

The raw set is what `keras.datasets.imdb.load_data(num_words=None)` returns: 25,000 train and
25,000 test reviews as word-id sequences, each starting with the start id 1; the word of
frequency rank r (1 = most frequent) has id r + 3 (0 is padding, 2 out-of-vocabulary, 3 unused);
labels are 0 (negative) and 1 (positive). A synthetic generator (synthetic_imdb.py) and a real
loader both produce `ImdbRaw`; `view` turns it into what one model consumes, with the same
numpy code for both backends.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

import numpy as np

from benchdata import Dataset
from benchdata.text import Sequences, add_bigrams, cut_vocabulary, pad_sequences

START, OOV, INDEX_FROM = 1, 2, 3
VIEW_KEYS = ("num_words", "ngram_range", "maxlen", "padding", "truncating")


@dataclass(frozen=True)
class ImdbRaw:
    train: Sequences
    y_train: np.ndarray  # int64 0/1
    test: Sequences
    y_test: np.ndarray


def view(raw: ImdbRaw, spec: Mapping[str, Any], info: dict[str, Any]) -> Dataset:
    """The model's inputs: vocabulary cut to `num_words`, bigram ids appended when
    `ngram_range` is 2 (imdb_fasttext.py), then padded/truncated to `maxlen` int32 columns.

    info["dims"] reports the sizes the model's arch must agree with: `max_features` (the
    embedding's input size: num_words, or the highest bigram id + 1) and `maxlen`.
    """
    missing = [k for k in VIEW_KEYS if k not in spec]
    if missing:
        raise ValueError(f"IMDb view needs {', '.join(missing)} (got {dict(spec)})")
    num_words, ngram_range = int(spec["num_words"]), int(spec["ngram_range"])
    train = cut_vocabulary(raw.train, num_words, OOV)
    test = cut_vocabulary(raw.test, num_words, OOV)
    if ngram_range == 2:
        train, test, max_features = add_bigrams(train, test, num_words)
    elif ngram_range == 1:
        max_features = num_words
    else:
        raise ValueError(f"ngram_range {ngram_range} is not supported; use 1 or 2")

    def padded(seqs: Sequences) -> np.ndarray:
        dtype = np.int32 if max_features <= np.iinfo(np.int32).max else np.int64
        return pad_sequences(
            seqs, int(spec["maxlen"]), spec["padding"], spec["truncating"], dtype=dtype
        )

    return Dataset(
        name="imdb",
        x_train=padded(train),
        y_train=raw.y_train,
        x_test=padded(test),
        y_test=raw.y_test,
        info={
            **info,
            "view": dict(spec),
            "dims": {"max_features": int(max_features), "maxlen": int(spec["maxlen"])},
            "mean_length": {
                "train": float(train.lengths().mean()),
                "test": float(test.lengths().mean()),
            },
        },
    )
