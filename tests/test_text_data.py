"""Text data: the shared preprocessing reproduces the Keras examples' steps, and the synthetic
IMDb and Nietzsche sets have the statistics their docstrings state. numpy only."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from benchdata import (
    Dataset,
    fill_arch,
    imdb,
    load,
    nietzsche,
    synthetic_imdb,
    synthetic_nietzsche,
)
from benchdata.text import (
    Sequences,
    _sort_with_order,
    add_bigrams,
    char_windows,
    cut_vocabulary,
    encode_chars,
    one_hot,
    pad_sequences,
)

FASTTEXT_VIEW = {
    "num_words": 20000,
    "ngram_range": 2,
    "maxlen": 400,
    "padding": "pre",
    "truncating": "pre",
}
WORDS_VIEW = {**FASTTEXT_VIEW, "ngram_range": 1}
ONEHOT_VIEW = {"lowercase": True, "maxlen": 40, "step": 3, "encoding": "onehot"}
IDS_VIEW = {**ONEHOT_VIEW, "encoding": "ids"}
NIETZSCHE_CHARS = "\n !\"'(),-.0123456789:;=?[]_abcdefghijklmnopqrstuvwxyzäæéë"


def seqs(rows: list[list[int]]) -> Sequences:
    flat = np.array([t for r in rows for t in r], np.int32)
    return Sequences.from_lengths(flat, np.array([len(r) for r in rows]))


# --------------------------------------------------------------- the Keras examples' own steps


def keras_pad(rows, maxlen, padding, truncating):
    """Keras 2 pad_sequences, row by row, as the library wrote it."""
    out = np.zeros((len(rows), maxlen), np.int32)
    for i, r in enumerate(rows):
        trunc = r[-maxlen:] if truncating == "pre" else r[:maxlen]
        if not trunc:
            continue
        if padding == "pre":
            out[i, -len(trunc) :] = trunc
        else:
            out[i, : len(trunc)] = trunc
    return out


def keras_bigrams(train, test, num_words):
    """imdb_fasttext.py's create_ngram_set/add_ngram for ngram_range=2, ids in sorted order."""
    ngram_set = set()
    for r in train:
        ngram_set.update(itertools.pairwise(r))
    start = num_words + 1
    token_indice = {g: start + k for k, g in enumerate(sorted(ngram_set))}
    add = [
        [r + [token_indice[g] for g in itertools.pairwise(r) if g in token_indice] for r in rows]
        for rows in (train, test)
    ]
    return add[0], add[1], max(token_indice.values()) + 1


@pytest.mark.parametrize("padding", ["pre", "post"])
@pytest.mark.parametrize("truncating", ["pre", "post"])
def test_pad_sequences_matches_keras(padding, truncating):
    rng = np.random.default_rng(1)
    rows = [list(rng.integers(1, 50, n)) for n in (0, 1, 3, 5, 6, 9, 20)]
    got = pad_sequences(seqs(rows), 6, padding, truncating)
    assert got.dtype == np.int32
    assert np.array_equal(got, keras_pad(rows, 6, padding, truncating))


def test_cut_vocabulary_replaces_rare_ids_with_oov():
    out = cut_vocabulary(seqs([[1, 5, 19, 20, 400]]), num_words=20)
    assert out.tokens.tolist() == [1, 5, 19, 2, 2]


def test_add_bigrams_matches_the_fasttext_example():
    rng = np.random.default_rng(2)
    train = [list(map(int, rng.integers(1, 12, n))) for n in rng.integers(1, 15, 40)]
    test = [list(map(int, rng.integers(1, 14, n))) for n in rng.integers(1, 15, 30)]
    test = [[min(t, 12) for t in r] for r in test]  # ids < num_words, some pairs unseen
    a, b, max_features = add_bigrams(seqs(train), seqs(test), num_words=13)
    ref_a, ref_b, ref_max = keras_bigrams(train, test, 13)
    assert max_features == ref_max
    assert [a.row(i).tolist() for i in range(len(a))] == ref_a
    assert [b.row(i).tolist() for i in range(len(b))] == ref_b


def test_add_bigrams_refuses_ids_beyond_the_vocabulary():
    with pytest.raises(ValueError, match="cut the vocabulary"):
        add_bigrams(seqs([[1, 30]]), seqs([[1]]), num_words=20)


@pytest.mark.parametrize("high", [1000, 2**60])  # packed sort, and the argsort fallback
def test_sort_with_order_is_a_stable_argsort(high):
    values = np.random.default_rng(3).integers(0, high, 5000, dtype=np.int64)
    values[:100] = values[100:200]  # ties
    order, ordered = _sort_with_order(values)
    assert np.array_equal(order, np.argsort(values, kind="stable"))
    assert np.array_equal(ordered, values[order])


def test_char_windows_and_one_hot_match_the_example():
    text = "the quick brown fox jumps over the lazy dog"
    chars = sorted(set(text))
    x, y = char_windows(encode_chars(text, chars), maxlen=10, step=3)
    starts = range(0, len(text) - 10, 3)
    assert ["".join(chars[i] for i in row) for row in x] == [text[i : i + 10] for i in starts]
    assert [chars[i] for i in y] == [text[i + 10] for i in starts]
    hot = one_hot(x, len(chars))
    assert hot.dtype == bool and hot.shape == (*x.shape, len(chars))
    assert np.array_equal(hot.argmax(-1), x) and (hot.sum(-1) == 1).all()
    with pytest.raises(ValueError, match="outside the vocabulary"):
        encode_chars("the cat!", chars)


# --------------------------------------------------------------- config sizes from the data


def test_fill_arch_takes_null_sizes_from_the_data_and_checks_fixed_ones():
    data = Dataset("d", *(np.zeros(1),) * 4, info={"dims": {"chars": 57, "maxlen": 40}})
    cfg = {"name": "m", "arch": {"chars": None, "maxlen": 40, "units": 128}}
    assert fill_arch(cfg, data)["arch"] == {"chars": 57, "maxlen": 40, "units": 128}
    with pytest.raises(ValueError, match="maxlen=100 but the d data gives 40"):
        fill_arch({"name": "m", "arch": {"maxlen": 100}}, data)
    with pytest.raises(ValueError, match="null but not in the data"):
        fill_arch({"name": "m", "arch": {"hidden": None}}, data)


# --------------------------------------------------------------- synthetic IMDb


@pytest.fixture(scope="module")
def imdb_raw():
    return synthetic_imdb.raw(seed=0)


def test_imdb_raw_follows_keras_conventions(imdb_raw):
    for split, labels in ((imdb_raw.train, imdb_raw.y_train), (imdb_raw.test, imdb_raw.y_test)):
        assert len(split) == 25_000 and split.tokens.dtype == np.int32
        assert np.array_equal(np.bincount(labels), [12_500, 12_500])
        starts = split.offsets[:-1]
        assert (split.tokens[starts] == imdb.START).all()
        words = np.delete(split.tokens, starts)
        # ranks 1.. offset by 3; no OOV ids before a model's num_words cut
        assert words.min() == 1 + imdb.INDEX_FROM
        assert words.max() <= synthetic_imdb.VOCABULARY + imdb.INDEX_FROM


def test_imdb_lengths_are_distributed_like_imdb(imdb_raw):
    lengths = np.concatenate([imdb_raw.train.lengths(), imdb_raw.test.lengths()])
    assert 220 < lengths.mean() < 245
    assert 160 < np.median(lengths) < 190
    assert 0.003 < (lengths > 1000).mean() < 0.03 and lengths.max() > 2000
    assert lengths.min() >= 10


def test_imdb_word_ids_are_zipf_distributed(imdb_raw):
    counts = np.bincount(imdb_raw.train.tokens, minlength=200)
    # Ranks 1..100 (ids 4..103) lie below the sentiment lexicon: pure Zipf-Mandelbrot there.
    ranks = np.arange(1, 101)
    slope = np.polyfit(np.log(ranks + synthetic_imdb.ZIPF_Q), np.log(counts[ranks + 3]), 1)[0]
    assert slope == pytest.approx(-synthetic_imdb.ZIPF_S, abs=0.1)
    words = cut_vocabulary(imdb_raw.train, 20_000).tokens
    assert 0.05 < (words == 4).mean() < 0.07  # the most frequent word, IMDb's 'the'
    assert 0.03 < (words == imdb.OOV).mean() < 0.08


def test_imdb_sentiment_is_learnable_but_not_trivial(imdb_raw):
    data = imdb.view(imdb_raw, WORDS_VIEW, {})
    pos, neg = (
        np.bincount(data.x_train[data.y_train == c].ravel(), minlength=20_000) + 1.0 for c in (1, 0)
    )
    weight = np.log(pos / pos.sum()) - np.log(neg / neg.sum())
    weight[0] = 0.0  # padding
    accuracy = ((weight[data.x_test].sum(1) > 0) == data.y_test).mean()
    assert 0.8 < accuracy < 0.95  # naive Bayes; label noise keeps it off 100%
    shuffled = np.random.default_rng(0).permutation(data.y_test)
    assert abs(((weight[data.x_test].sum(1) > 0) == shuffled).mean() - 0.5) < 0.02


def test_fasttext_view_appends_bigram_ids_and_pads_in_front(imdb_raw):
    data = imdb.view(imdb_raw, FASTTEXT_VIEW, {})
    max_features = data.info["dims"]["max_features"]
    assert data.x_train.shape == data.x_test.shape == (25_000, 400)
    assert data.x_train.dtype == np.int32
    assert 1_000_000 < max_features < 1_600_000  # the embedding grows past 20,000 words
    assert data.x_train.max() == max_features - 1 and data.x_test.max() < max_features
    # Bigrams about double a review (test reviews lose the bigrams training never saw).
    assert 1.8 < data.info["mean_length"]["train"] / 231 < 2.1
    assert data.info["mean_length"]["test"] < data.info["mean_length"]["train"]
    short = np.flatnonzero((data.x_train == 0).any(1))
    row = data.x_train[short[0]]
    kept = row[np.argmax(row != 0) :]
    assert (row[: 400 - len(kept)] == 0).all() and (kept != 0).all()  # 'pre' padding
    assert kept[0] == imdb.START and kept[-1] > 20_000  # words first, then bigram ids


def test_words_view_is_cut_and_truncated_at_the_front(imdb_raw):
    """Through benchdata.load, as the worker asks; the same seed gives the same reviews."""
    data = load("imdb", "synthetic", 0, {**WORDS_VIEW, "maxlen": 100})
    raw = imdb_raw
    assert data.x_train.shape == (25_000, 100) and data.info["dims"]["max_features"] == 20_000
    assert data.x_train.max() < 20_000 and (data.x_train == imdb.OOV).any()
    long = np.flatnonzero(raw.train.lengths() > 100)[0]
    expected = cut_vocabulary(raw.train, 20_000).row(long)[-100:]  # 'pre' keeps the end
    assert np.array_equal(data.x_train[long], expected)


def test_another_seed_gives_other_reviews(imdb_raw):
    other = synthetic_imdb.raw(1)
    assert not np.array_equal(other.y_train, imdb_raw.y_train)
    assert not np.array_equal(other.train.lengths(), imdb_raw.train.lengths())


# --------------------------------------------------------------- synthetic Nietzsche


@pytest.fixture(scope="module")
def text():
    return synthetic_nietzsche.raw(seed=0)


def test_nietzsche_text_has_the_corpus_size_and_57_characters(text):
    assert len(text.train_text) == 600_893 and len(text.test_text) == 60_000
    assert "".join(sorted(set(text.train_text))) == NIETZSCHE_CHARS
    assert set(text.test_text) <= set(text.train_text)
    counts = np.unique(list(text.train_text), return_counts=True)[1]
    assert counts.min() >= 50  # the rarest character is not an accident of the seed
    assert 0.14 < text.train_text.count(" ") / len(text.train_text) < 0.22
    assert max(len(line) for line in text.train_text.split("\n")) <= 90  # wrapped lines


@pytest.mark.parametrize("seed", [1, 2])
def test_every_seed_gives_another_text_with_the_same_57_characters(seed, text):
    other = synthetic_nietzsche.raw(seed)
    assert "".join(sorted(set(other.train_text))) == NIETZSCHE_CHARS
    assert other.train_text != text.train_text


def test_next_character_is_predictable_from_context(text):
    chars = sorted(set(text.train_text))
    train, test = (
        encode_chars(t, chars).astype(np.int64) for t in (text.train_text, text.test_text)
    )
    n = len(chars)

    def context(ids):  # the previous three characters
        return (ids[:-3] * n + ids[1:-2]) * n + ids[2:-1]

    table = np.zeros((n**3, n), np.int64)
    np.add.at(table, (context(train), train[3:]), 1)
    accuracy = (table.argmax(1)[context(test)] == test[3:]).mean()
    most_frequent = np.bincount(test).max() / len(test)
    assert accuracy > 0.4 and accuracy > 2 * most_frequent


def test_onehot_and_id_windows_are_the_examples(text):
    hot = nietzsche.view(text, ONEHOT_VIEW, {})
    ids = nietzsche.view(text, IDS_VIEW, {})
    assert hot.x_train.shape == (200_285, 40, 57) and hot.x_train.dtype == bool
    assert hot.x_test.shape == (19_987, 40, 57)
    assert ids.x_train.shape == (200_285, 40) and ids.x_train.dtype == np.int32
    assert hot.info["dims"] == ids.info["dims"] == {"chars": 57, "maxlen": 40}
    assert np.array_equal(hot.y_train, ids.y_train) and hot.y_train.dtype == np.int64
    assert np.array_equal(hot.x_test.argmax(-1), ids.x_test) and (hot.x_test.sum(-1) == 1).all()
    chars = sorted(set(text.train_text))
    assert "".join(chars[i] for i in ids.x_train[1000]) == text.train_text[3000:3040]
    assert chars[ids.y_train[1000]] == text.train_text[3040]
    # Windows every 3 characters: each window's label is the next window's last-but-two char.
    assert np.array_equal(ids.y_train[:-1], ids.x_train[1:, 37])


def test_next_ids_label_every_position_with_the_following_character(text):
    """gpt's blocks: y is x one character on, so position t's label is position t + 1's input."""
    data = nietzsche.view(text, {**IDS_VIEW, "maxlen": 64, "step": 64, "encoding": "next_ids"}, {})
    assert data.x_train.shape == data.y_train.shape == (len(range(0, 600_893 - 64, 64)), 64)
    assert data.y_train.dtype == np.int64 and data.x_train.dtype == np.int32
    assert np.array_equal(data.y_train[:, :-1], data.x_train[:, 1:])
    assert np.array_equal(data.y_train[:-1, -1], data.x_train[1:, 0])  # blocks are contiguous
    with pytest.raises(ValueError, match="maxlen=700000 leaves no window"):
        nietzsche.view(text, {**IDS_VIEW, "maxlen": 700_000}, {})


def test_a_single_corpus_trains_on_all_of_it_and_validates_on_its_tail():
    corpus = "abc def. " * 10_000  # 90,000 characters, as the real file comes: one string
    data = nietzsche.view(corpus, IDS_VIEW, {"source": "real"})
    assert len(data.x_train) == len(range(0, 90_000 - 40, 3))
    assert data.info["corpus_length"] == {"train": 90_000, "test": nietzsche.HELD_OUT_CHARS}


def test_nietzsche_is_deterministic_in_the_seed(text):
    """Through benchdata.load, as the worker asks: the same seed, the same windows."""
    data = load("nietzsche", "synthetic", 0, IDS_VIEW)
    assert np.array_equal(data.x_test, nietzsche.view(text, IDS_VIEW, {}).x_test)
