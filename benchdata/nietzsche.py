"""Nietzsche text: the raw corpus, and the character-window views the text models consume.

The raw corpus is a training text (lstm_text_generation.py trains on the whole of
nietzsche.txt, 600,893 characters) and a validation text for the harness's per-epoch
validation, which the example did not have (twinbench reports training time apart from
validation): a held-out continuation for synthetic text, the corpus' tail for the real file.
A synthetic generator (synthetic_nietzsche.py) and a real loader both produce `NietzscheRaw`;
`view` turns it into one model's inputs with the same numpy code for both backends.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from benchdata import Dataset
from benchdata.text import char_vocabulary, char_windows, encode_chars, next_windows, one_hot

VIEW_KEYS = ("lowercase", "maxlen", "step", "encoding")
ENCODINGS = ("onehot", "ids", "next_ids")
HELD_OUT_CHARS = 60_000  # validation text: 19,987 windows of 40 at step 3


@dataclass(frozen=True)
class NietzscheRaw:
    train_text: str
    test_text: str

    @classmethod
    def from_text(cls, text: str) -> NietzscheRaw:
        """One corpus (the real nietzsche.txt): train on all of it, as the example does, and
        validate on its last HELD_OUT_CHARS characters. Those windows are also trained on, so
        validation accuracy is optimistic; it is a progress signal, and the training cost
        stays the example's."""
        return cls(text, text[-HELD_OUT_CHARS:])


def view(raw: NietzscheRaw | str, spec: Mapping[str, Any], info: dict[str, Any]) -> Dataset:
    """Windows of `maxlen` characters every `step` characters, the next character as label.

    encoding 'onehot': x bool [n, maxlen, chars], as the example builds it (np.zeros(...,
    dtype=bool)); Keras casts it to float32 at the model's input and the torch module does the
    same, so no float32 copy of the whole set (1.8 GB for 200,285 windows) is ever made.
    encoding 'ids': x int32 [n, maxlen] of character ids, for an Embedding.
    encoding 'next_ids': x as 'ids', y int64 [n, maxlen] the window moved on by one character:
    a label per position, for a causal language model (gpt).
    The character set is the example's sorted(set(text)) of the training text; info["dims"]
    reports `chars` and `maxlen` for the model's arch. A plain string is one corpus
    (`NietzscheRaw.from_text`).
    """
    if isinstance(raw, str):
        raw = NietzscheRaw.from_text(raw)
    missing = [k for k in VIEW_KEYS if k not in spec]
    if missing:
        raise ValueError(f"Nietzsche view needs {', '.join(missing)} (got {dict(spec)})")
    if spec["encoding"] not in ENCODINGS:
        raise ValueError(f"encoding must be one of {ENCODINGS}, got {spec['encoding']!r}")
    train_text, test_text = raw.train_text, raw.test_text
    if spec["lowercase"]:
        train_text, test_text = train_text.lower(), test_text.lower()
    chars = char_vocabulary(train_text)
    maxlen, step = int(spec["maxlen"]), int(spec["step"])
    windows = next_windows if spec["encoding"] == "next_ids" else char_windows
    x_train, y_train = windows(encode_chars(train_text, chars), maxlen, step)
    x_test, y_test = windows(encode_chars(test_text, chars), maxlen, step)
    if not len(x_train) or not len(x_test):
        raise ValueError(
            f"view.maxlen={maxlen} leaves no window: the context is longer than the text "
            f"({len(train_text):,} training, {len(test_text):,} validation characters)"
        )
    if spec["encoding"] == "onehot":
        x_train, x_test = one_hot(x_train, len(chars)), one_hot(x_test, len(chars))
    else:
        x_train, x_test = x_train.astype("int32"), x_test.astype("int32")
    return Dataset(
        name="nietzsche",
        x_train=x_train,
        y_train=y_train,
        x_test=x_test,
        y_test=y_test,
        info={
            **info,
            "view": dict(spec),
            "dims": {"chars": len(chars), "maxlen": maxlen},
            "vocabulary": "".join(chars),  # id -> character, to print what a model generates
            "corpus_length": {"train": len(train_text), "test": len(test_text)},
        },
    )
