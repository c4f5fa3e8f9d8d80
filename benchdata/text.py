"""Text preprocessing shared by every backend and by synthetic and real data. numpy only.

Each function reproduces one step of the Keras examples, vectorised so the whole IMDb set is
processed in about a second instead of the examples' per-review Python loops:
- `cut_vocabulary`: `imdb.load_data(num_words=...)`, ids at or above `num_words` become OOV;
- `add_bigrams`: imdb_fasttext.py's `create_ngram_set` + `add_ngram` for ngram_range=2;
- `pad_sequences`: Keras 2's `pad_sequences` ('pre' padding and truncation by default);
- `encode_chars`, `char_windows`, `one_hot`: lstm_text_generation.py's character windows.

Variable-length sequences are held as `Sequences`: one flat token array plus row offsets.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Sequences:
    """Ragged integer sequences: row i is tokens[offsets[i]:offsets[i + 1]]."""

    tokens: np.ndarray  # int32, all rows back to back
    offsets: np.ndarray  # int64, len(rows) + 1, starts at 0

    @classmethod
    def from_lengths(cls, tokens: np.ndarray, lengths: np.ndarray) -> Sequences:
        offsets = np.zeros(len(lengths) + 1, np.int64)
        np.cumsum(lengths, out=offsets[1:])
        if offsets[-1] != len(tokens):
            raise ValueError(f"lengths sum to {offsets[-1]}, but there are {len(tokens)} tokens")
        return cls(tokens, offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    def row(self, i: int) -> np.ndarray:
        return self.tokens[self.offsets[i] : self.offsets[i + 1]]

    def row_ids(self) -> np.ndarray:
        """For every token, the row it belongs to."""
        return np.repeat(np.arange(len(self)), self.lengths())

    def positions(self) -> np.ndarray:
        """For every token, its position inside its row."""
        return np.arange(len(self.tokens)) - np.repeat(self.offsets[:-1], self.lengths())


def cut_vocabulary(seqs: Sequences, num_words: int, oov: int = 2) -> Sequences:
    """Keras' imdb.load_data(num_words): every id >= num_words becomes the OOV id."""
    return Sequences(np.where(seqs.tokens >= num_words, oov, seqs.tokens), seqs.offsets)


def _bigram_codes(seqs: Sequences, base: int) -> tuple[np.ndarray, np.ndarray]:
    """Codes first * base + second of every adjacent pair inside a row, and each pair's row."""
    t = seqs.tokens.astype(np.int64)
    rows = seqs.row_ids()
    inside = rows[:-1] == rows[1:]  # pairs that straddle two rows are not bigrams
    return (t[:-1] * base + t[1:])[inside], rows[:-1][inside]


def _append_per_row(seqs: Sequences, extra: np.ndarray, extra_rows: np.ndarray) -> Sequences:
    """Each row followed by its entries of `extra` (given in row order, order kept)."""
    n, lengths = len(seqs), seqs.lengths()
    counts = np.bincount(extra_rows, minlength=n)
    new_offsets = np.zeros(n + 1, np.int64)
    np.cumsum(lengths + counts, out=new_offsets[1:])
    out = np.empty(new_offsets[-1], seqs.tokens.dtype)
    out[new_offsets[:-1][seqs.row_ids()] + seqs.positions()] = seqs.tokens
    first_extra = np.zeros(n, np.int64)
    np.cumsum(counts[:-1], out=first_extra[1:])
    rank = np.arange(len(extra)) - first_extra[extra_rows]
    out[new_offsets[extra_rows] + lengths[extra_rows] + rank] = extra
    return Sequences(out, new_offsets)


def _sort_with_order(values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(argsort, sorted values) of non-negative int64 values, through one plain sort.

    Each value is packed with its index into one int64, so sorting the packed array sorts the
    values and carries their positions along: several times faster than np.argsort, and than
    np.unique's hash table, on millions of bigram codes.
    """
    bits = max(1, (len(values) - 1).bit_length())
    if len(values) == 0 or int(values.max()) >= 1 << (62 - bits):
        order = np.argsort(values, kind="stable")
        return order, values[order]
    packed = np.sort((values << bits) | np.arange(len(values), dtype=np.int64))
    return packed & ((1 << bits) - 1), packed >> bits


def add_bigrams(
    train: Sequences, test: Sequences, num_words: int
) -> tuple[Sequences, Sequences, int]:
    """imdb_fasttext.py with ngram_range=2: append the ids of each review's bigrams.

    Bigrams are the distinct adjacent pairs of the training set; they get ids num_words + 1,
    num_words + 2, ... (the example's `start_index = max_features + 1`), here in sorted order of
    the pair where the example used Python's set order: a relabelling that changes no cost.
    Each review keeps its tokens and gains, in order of position, the ids of its bigrams that
    the training set has (test reviews lose bigrams unseen in training). Returns the augmented
    sets and max_features = highest id + 1, the embedding's input size.
    """
    for seqs in (train, test):
        if len(seqs.tokens) and seqs.tokens.max() >= num_words:
            raise ValueError("cut the vocabulary to num_words before adding bigrams")
    start_index = num_words + 1
    (train_codes, train_rows), (test_codes, test_rows) = (
        _bigram_codes(s, num_words) for s in (train, test)
    )
    # One sort of all codes: equal codes form runs; runs holding a training code are the
    # vocabulary, numbered in code order.
    order, codes = _sort_with_order(np.concatenate([train_codes, test_codes]))
    run = np.cumsum(np.concatenate([[True], codes[1:] != codes[:-1]])) - 1
    in_train = np.zeros(run[-1] + 1 if len(run) else 0, bool)
    in_train[run[order < len(train_codes)]] = True
    run_id = start_index + np.cumsum(in_train) - 1
    max_features = start_index + int(in_train.sum())
    dtype = np.int32 if max_features <= np.iinfo(np.int32).max else np.int64
    ids = np.empty(len(codes), np.int64)
    ids[order] = np.where(in_train[run], run_id[run], -1)

    def augment(seqs: Sequences, ids: np.ndarray, rows: np.ndarray) -> Sequences:
        known = ids >= 0
        as_dtype = Sequences(seqs.tokens.astype(dtype), seqs.offsets)
        return _append_per_row(as_dtype, ids[known].astype(dtype), rows[known])

    n = len(train_codes)
    return (
        augment(train, ids[:n], train_rows),
        augment(test, ids[n:], test_rows),
        max_features,
    )


def pad_sequences(
    seqs: Sequences,
    maxlen: int,
    padding: str = "pre",
    truncating: str = "pre",
    value: int = 0,
    dtype: type = np.int32,
) -> np.ndarray:
    """Keras 2's pad_sequences: [rows, maxlen]; 'pre' drops/pads at the front, 'post' at the end."""
    for name, side in (("padding", padding), ("truncating", truncating)):
        if side not in ("pre", "post"):
            raise ValueError(f"{name} must be 'pre' or 'post', got {side!r}")
    lengths = seqs.lengths()
    kept = np.minimum(lengths, maxlen)
    first_kept = lengths - kept if truncating == "pre" else np.zeros_like(lengths)
    rows, pos = seqs.row_ids(), seqs.positions()
    keep = (pos >= first_kept[rows]) & (pos < first_kept[rows] + kept[rows])
    column = pos - first_kept[rows] + ((maxlen - kept[rows]) if padding == "pre" else 0)
    out = np.full((len(seqs), maxlen), value, dtype)
    out[rows[keep], column[keep]] = seqs.tokens[keep]
    return out


def char_vocabulary(text: str) -> list[str]:
    """The example's `chars = sorted(list(set(text)))`: id = position in code-point order."""
    return sorted(set(text))


def encode_chars(text: str, chars: list[str]) -> np.ndarray:
    """uint8 char ids of `text` under `chars` (at most 256 characters)."""
    codes = np.frombuffer(text.encode("utf-32-le"), dtype="<u4")
    table = np.array([ord(c) for c in chars], dtype=np.uint32)
    ids = np.searchsorted(table, codes)
    if len(codes) and (ids.max() >= len(table) or not np.array_equal(table[ids], codes)):
        raise ValueError("text holds characters outside the vocabulary")
    return ids.astype(np.uint8)


def char_windows(ids: np.ndarray, maxlen: int, step: int) -> tuple[np.ndarray, np.ndarray]:
    """lstm_text_generation.py's windows: starts 0, step, ... < len - maxlen; the next char.

    Returns x [n, maxlen] (ids, a strided gather, no Python loop) and y [n] as int64.
    """
    starts = np.arange(0, len(ids) - maxlen, step)
    return ids[starts[:, None] + np.arange(maxlen)], ids[starts + maxlen].astype(np.int64)


def next_windows(ids: np.ndarray, maxlen: int, step: int) -> tuple[np.ndarray, np.ndarray]:
    """nanoGPT's blocks: x [n, maxlen] from starts 0, step, ... and y the same window one
    character later (int64), so every position has its next character as label."""
    starts = np.arange(0, len(ids) - maxlen, step)
    window = starts[:, None] + np.arange(maxlen)
    return ids[window], ids[window + 1].astype(np.int64)


def one_hot(x: np.ndarray, depth: int) -> np.ndarray:
    """bool [..., depth], as the example's np.zeros(..., dtype=bool) filled with ones."""
    return np.eye(depth, dtype=bool)[x]
