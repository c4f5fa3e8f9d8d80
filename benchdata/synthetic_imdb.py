"""Synthetic IMDb: Keras' imdb.npz conventions, IMDb's size and length statistics, a learnable
sentiment signal. Deterministic in `seed`; about 2 seconds (the bigram view about 3 more).

Raw set (benchdata/imdb.py `ImdbRaw`), as `imdb.load_data(num_words=None)` returns it:
- 25,000 train and 25,000 test reviews, labels exactly balanced (12,500 per class and split);
- each review starts with id 1; word ids are frequency rank + 3 over a vocabulary of 88,584
  words (the size of Keras' IMDb word index), so the most frequent word is 4;
- word ranks are Zipf-Mandelbrot distributed, p(r) ~ (r + 2.7)^-1.2: the most frequent word is
  about 6% of tokens (IMDb's 'the') and about 5% of tokens fall outside the 20,000-word cut
  (out-of-vocabulary id 2 after `num_words=20000`);
- word order is a Markov chain: with probability 0.4 a word is one of 8 fixed successors of the
  previous word (runs of at most 8), otherwise a fresh Zipf draw. Collocations make bigrams
  repeat as in real text: the training set has about 1.26 million distinct bigrams after the
  20,000-word cut, so fastText's embedding has about 1.28 million rows (independent draws would
  give over 2 million);
- review lengths (start token included) are lognormal, median 175 and sigma 0.75, clipped to
  [10, 2,500]: mean about 232, about 1% longer than 1,000 tokens (IMDb: mean 239, longest
  2,494);
- sentiment: each token is, with probability 0.06, replaced by a word of a 300-word lexicon of
  the review's label (probability 0.75) or of the other label's (0.25). Lexicon words are
  ranks 200-5,000, inside every model's vocabulary. Naive Bayes over word counts reaches about
  87% test accuracy on the last 400 tokens and 80% on the last 100: learnable, not trivial.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchdata import Dataset, imdb
from benchdata.imdb import INDEX_FROM, START, ImdbRaw
from benchdata.text import Sequences

N_TRAIN = N_TEST = 25_000
VOCABULARY = 88_584
ZIPF_S, ZIPF_Q = 1.2, 2.7
LENGTH_MEDIAN, LENGTH_SIGMA, MIN_LENGTH, MAX_LENGTH = 175, 0.75, 10, 2_500
FOLLOW_P, SUCCESSORS, MAX_RUN = 0.4, 8, 8
SENTIMENT_P, OWN_LABEL_P, LEXICON, LEXICON_RANKS = 0.06, 0.75, 300, (200, 5_000)


def _zipf_ranks(rng: np.random.Generator, size: int) -> np.ndarray:
    """`size` word ranks (1-based) in random order, Zipf-Mandelbrot distributed.

    Counts per rank come from one multinomial draw, then a shuffle: much faster than an
    inverse-CDF search for each of ~11 million tokens.
    """
    ranks = np.arange(1, VOCABULARY + 1)
    p = (ranks + ZIPF_Q) ** -ZIPF_S
    counts = rng.multinomial(size, p / p.sum())
    return rng.permutation(np.repeat(ranks.astype(np.int32), counts))


def _markov_order(rng: np.random.Generator, ranks: np.ndarray, seqs: Sequences) -> np.ndarray:
    """Replace some draws by a fixed successor of the previous word (collocations)."""
    n = len(ranks)
    successors = _zipf_ranks(rng, (VOCABULARY + 1) * SUCCESSORS).reshape(-1, SUCCESSORS)
    follow = (rng.random(n, dtype=np.float32) < FOLLOW_P) & (seqs.positions() >= 2)
    index = np.arange(n)
    run = index - np.maximum.accumulate(np.where(follow, 0, index))  # steps since a fresh draw
    follow &= run <= MAX_RUN
    choice = rng.integers(0, SUCCESSORS, n, dtype=np.int8)
    for depth in range(1, MAX_RUN + 1):  # each pass resolves the next link of every chain
        at = np.flatnonzero(follow & (run == depth))
        ranks[at] = successors[ranks[at - 1], choice[at]]
    return ranks


def raw(seed: int = 0) -> ImdbRaw:
    rng = np.random.default_rng([seed, 0x1BDB])
    n = N_TRAIN + N_TEST
    lengths = np.clip(
        np.round(rng.lognormal(np.log(LENGTH_MEDIAN), LENGTH_SIGMA, n)), MIN_LENGTH, MAX_LENGTH
    ).astype(np.int64)
    labels = np.concatenate(
        [rng.permutation(np.arange(size) % 2) for size in (N_TRAIN, N_TEST)]
    ).astype(np.int64)
    total = int(lengths.sum())
    shape = Sequences.from_lengths(np.empty(total, np.int32), lengths)
    ranks = _markov_order(rng, _zipf_ranks(rng, total), shape)

    lexicon = rng.choice(np.arange(*LEXICON_RANKS), (2, LEXICON), replace=False)  # [neg, pos]
    token_label = labels[shape.row_ids()]
    sentiment = rng.random(total, dtype=np.float32) < SENTIMENT_P
    at = np.flatnonzero(sentiment)
    own = rng.random(len(at), dtype=np.float32) < OWN_LABEL_P
    side = np.where(own, token_label[at], 1 - token_label[at])
    ranks[at] = lexicon[side, rng.integers(0, LEXICON, len(at))]

    tokens = (ranks + INDEX_FROM).astype(np.int32)
    tokens[shape.offsets[:-1]] = START
    split = shape.offsets[N_TRAIN]
    return ImdbRaw(
        train=Sequences.from_lengths(tokens[:split], lengths[:N_TRAIN]),
        y_train=labels[:N_TRAIN],
        test=Sequences.from_lengths(tokens[split:], lengths[N_TRAIN:]),
        y_test=labels[N_TRAIN:],
    )


def generate(seed: int = 0, view: dict[str, Any] | None = None) -> Dataset:
    """The raw synthetic set through the model's view (benchdata/imdb.py `view`)."""
    if not isinstance(view, dict):
        raise ValueError(f"the IMDb view is a mapping of preprocessing keys, got {view!r}")
    return imdb.view(raw(seed), view, {"source": "synthetic", "seed": seed})
