"""Synthetic Nietzsche: a text with nietzsche.txt's size, character set and layout, and
structure an LSTM can learn. Deterministic in `seed`; generated in well under a second.

- Training text of exactly 600,893 characters (nietzsche.txt's length), so 40-character
  windows at step 3 give the example's 200,285 sequences; a held-out continuation of 60,000
  characters gives 19,987 validation windows.
- The 57 characters of lowercased nietzsche.txt: newline, space, ! " ' ( ) , - . 0-9 : ; = ? [
  ] _ a-z ä æ é ë. Every one of them occurs in the training text (the rarest, the brackets,
  about 150 times), so the character count, and with it the models' size, does not depend on
  the seed.
- Words: a dictionary of 4,000 pronounceable pseudo-words spelt with English letter
  frequencies, frequent ones shorter (about 4 letters per word token; space is 18% of the
  characters, as in nietzsche.txt); four frequent words carry the accented letters. Word
  frequencies are Zipfian (p ~ 1/(rank + 2), rank from 0).
- Word order is a Markov chain: with probability 0.6 the next word is one of 6 fixed successors
  of the current one, otherwise a Zipf draw. So the next character is predictable from the
  current word and its predecessor: from the previous three characters alone, the most
  frequent continuation is right about half the time (the most frequent character, space,
  is 18% of the text).
- Layout like the Project Gutenberg file: numbered aphorisms ("12. ") of about 6 sentences of
  about 17 words, separated by blank lines, lines wrapped at 70 characters; commas, semicolons,
  colons, " -- ", quotations, parentheses, brackets, _emphasis_ and =headings= at fixed rates.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from benchdata import Dataset, nietzsche
from benchdata.nietzsche import HELD_OUT_CHARS, NietzscheRaw

TRAIN_CHARS, TEST_CHARS = 600_893, HELD_OUT_CHARS
LETTERS = "abcdefghijklmnopqrstuvwxyz"
VOWELS = "aeiouy"
# Relative frequencies of a-z in English text.
LETTER_FREQ = (
    8.2, 1.5, 2.8, 4.3, 12.7, 2.2, 2.0, 6.1, 7.0, 0.15, 0.77, 4.0, 2.4,
    6.7, 7.5, 1.9, 0.095, 6.0, 6.3, 9.1, 2.8, 0.98, 2.4, 0.15, 2.0, 0.074,
)  # fmt: skip
ACCENTED = "äæéë"
ACCENTED_RANKS = (20, 30, 40, 50)  # frequent enough that each occurs hundreds of times
WORDS, SUCCESSORS, FOLLOW_P = 4_000, 6, 0.6
SENTENCE_END_P, PARAGRAPH_END_P = 1 / 17, 1 / 6
LINE_WIDTH = 70
# Per word: separators after it, decorations around it, openings of a bracketed run.
SEPARATORS = ((", ", 0.07), ("; ", 0.012), (": ", 0.006), (" -- ", 0.01))
ENDINGS = ((".", 0.8), ("?", 0.1), ("!", 0.1))
EMPHASIS_P, HEADING_P, POSSESSIVE_P = 0.005, 0.002, 0.01
OPENINGS = (('"', '"', 0.003), ("(", ")", 0.004), ("[", "]", 0.0015))


def _dictionary(rng: np.random.Generator) -> list[str]:
    """WORDS distinct pronounceable pseudo-words; frequent (low-rank) words are shorter.

    Letters alternate between vowels and consonants, each drawn with its English frequency;
    length is 1 + Poisson(0.8 + 0.5 ln(rank + 2)): about 2.4 letters for the top words, 6 for
    the rarest, about 4 per word token (English: about 4.5).
    """
    freq = dict(zip(LETTERS, LETTER_FREQ, strict=True))
    classes = [[c for c in LETTERS if (c in VOWELS) == vowel] for vowel in (False, True)]
    probs = [np.array([freq[c] for c in group]) / sum(freq[c] for c in group) for group in classes]
    lengths = 1 + rng.poisson(0.8 + 0.5 * np.log(np.arange(WORDS) + 2.0))
    words: list[str] = []
    seen: set[str] = set()
    for rank in range(WORDS):
        length = int(min(lengths[rank], 15))
        while True:
            kind = (np.arange(length) + int(rng.random() < 0.3)) % 2  # 1 = vowel
            draws = [rng.choice(len(g), length, p=p) for g, p in zip(classes, probs, strict=True)]
            word = "".join(classes[k][draws[k][i]] for i, k in enumerate(kind))
            if word not in seen:
                break
            length += 1  # short words run out first: try one letter longer
        seen.add(word)
        words.append(word)
    for rank, accent in zip(ACCENTED_RANKS, ACCENTED, strict=True):
        w = words[rank]
        at = int(rng.integers(0, len(w)))
        words[rank] = w[:at] + accent + w[at + 1 :]
    return words


def _word_sequence(rng: np.random.Generator, n: int) -> list[int]:
    """n word indices from the Markov chain over the Zipfian dictionary."""
    p = 1.0 / (np.arange(WORDS) + 2.0)
    p /= p.sum()
    fresh = rng.choice(WORDS, n, p=p).tolist()
    successors = rng.choice(WORDS, (WORDS, SUCCESSORS), p=p).tolist()
    follow = (rng.random(n) < FOLLOW_P).tolist()
    pick = rng.integers(0, SUCCESSORS, n).tolist()
    seq = [fresh[0]]
    for i in range(1, n):
        seq.append(successors[seq[-1]][pick[i]] if follow[i] else fresh[i])
    return seq


def _pick(options, u: float) -> str:
    for text, p in options:
        if u < p:
            return text
        u -= p
    return ""


def _paragraphs(rng: np.random.Generator, words: list[str], n_words: int) -> list[str]:
    """Numbered aphorisms, each one line of text (wrapped later)."""
    seq = _word_sequence(rng, n_words)
    u = rng.random((n_words, 6)).tolist()
    paragraphs, current, closing = [], ["1."], []
    section = 1
    for i, w in enumerate(seq):
        ui = u[i]
        word = words[w]
        if ui[0] < EMPHASIS_P:
            word = f"_{word}_"
        elif ui[0] < EMPHASIS_P + HEADING_P:
            word = f"={word}="
        elif ui[0] > 1 - POSSESSIVE_P:
            word += "'s"
        if not closing:
            for open_, close, p in OPENINGS:
                if ui[1] < p:
                    word, closing = open_ + word, [close, 2 + int(ui[2] * 6)]
                    break
                ui[1] -= p
        elif closing[1] == 0:
            word, closing = word + closing[0], []
        else:
            closing[1] -= 1
        current.append(word)
        if ui[3] < SENTENCE_END_P:
            if closing:  # a bracket or quotation never spans sentences
                current[-1] += closing[0]
                closing = []
            current[-1] += _pick(ENDINGS, ui[4])
            if ui[5] < PARAGRAPH_END_P:
                paragraphs.append(" ".join(current))
                section += 1
                current = [f"{section}."]
        else:
            current[-1] += _pick(SEPARATORS, ui[4]).rstrip(" ")
    paragraphs.append(" ".join(current))
    return paragraphs


def _wrap(paragraph: str) -> str:
    """Greedy wrapping at LINE_WIDTH, as the Gutenberg file's hard line breaks."""
    lines, line = [], ""
    for token in paragraph.split(" "):
        if line and len(line) + 1 + len(token) > LINE_WIDTH:
            lines.append(line)
            line = token
        else:
            line = f"{line} {token}" if line else token
    lines.append(line)
    return "\n".join(lines)


def raw(seed: int = 0) -> NietzscheRaw:
    rng = np.random.default_rng([seed, 0x4E1E7])
    words = _dictionary(rng)
    need = TRAIN_CHARS + TEST_CHARS
    text = ""
    n_words = need // 5
    while len(text) < need:  # about 5.5 characters per word: one pass almost always suffices
        n_words = int(n_words * 1.3)
        text = "\n\n".join(_wrap(p) for p in _paragraphs(rng, words, n_words)) + "\n"
    return NietzscheRaw(text[:TRAIN_CHARS], text[TRAIN_CHARS:need])


def generate(seed: int = 0, view: dict[str, Any] | None = None) -> Dataset:
    """The raw synthetic text through the model's view (benchdata/nietzsche.py `view`)."""
    if not isinstance(view, dict):
        raise ValueError(f"the Nietzsche view is a mapping of preprocessing keys, got {view!r}")
    return nietzsche.view(raw(seed), view, {"source": "synthetic", "seed": seed})
