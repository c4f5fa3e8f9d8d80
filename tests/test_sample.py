"""A language model's text after training (twinbench/worker/sample.py): one forward pass per
character over the last context window, the draw seeded, the first (tracing) pass untimed."""

from __future__ import annotations

import numpy as np
import pytest

from twinbench.worker.sample import sample

VOCAB = "abcd"


class Counting:
    """A backend whose model always puts probability 1 on (last id + 1) mod 4, and which records
    the windows it was given."""

    def __init__(self) -> None:
        self.windows: list[np.ndarray] = []

    def predict_batch(self, model, model_name, x):
        self.windows.append(x.copy())
        probs = np.zeros((1, x.shape[1], len(VOCAB)), np.float32)
        probs[0, -1, (int(x[0, -1]) + 1) % len(VOCAB)] = 1.0
        return probs


def test_each_character_comes_from_a_pass_over_the_last_context_window():
    backend = Counting()
    prompt = np.array([[0, 1, 2]], np.int32)
    found = sample(backend, None, "gpt", prompt, VOCAB, {"tokens": 6, "temperature": 1.0}, seed=0)
    assert found["prompt"] == "abc" and found["text"] == "dabcda"
    # one untimed first pass, then one per character, each over the last 3 ids only
    assert len(backend.windows) == 1 + 6
    assert all(w.shape == (1, 3) and w.dtype == np.int32 for w in backend.windows)
    assert backend.windows[-1].tolist() == [[1, 2, 3]]  # abc + dabcd: its last three
    assert found["tokens_per_s"] == pytest.approx(6 / found["seconds"])
    assert found["first_call_s"] >= 0


class Even:
    """Probabilities 0.9 / 0.1 on the first two characters, whatever the window."""

    def predict_batch(self, model, model_name, x):
        probs = np.zeros((1, x.shape[1], len(VOCAB)))
        probs[0, -1, :2] = (0.9, 0.1)
        return probs


def test_the_draw_is_seeded_and_temperature_sharpens_or_flattens_it():
    prompt = np.array([[0]], np.int32)

    def share_of_a(temperature: float, seed: int = 0) -> float:
        text = sample(Even(), None, "gpt", prompt, VOCAB,
                      {"tokens": 2000, "temperature": temperature}, seed)["text"]  # fmt: skip
        assert set(text) <= {"a", "b"}
        return text.count("a") / len(text)

    assert share_of_a(1.0) == share_of_a(1.0)  # same seed, same text on every backend
    assert 0.88 < share_of_a(1.0) < 0.92
    assert share_of_a(0.5) > 0.97  # 0.81 / 0.82: sharper
    assert 0.60 < share_of_a(4.0) < 0.67  # 0.9^0.25 / (0.9^0.25 + 0.1^0.25) = 0.634


@pytest.mark.parametrize("settings", [{"tokens": 0, "temperature": 1.0},
                                      {"tokens": 5, "temperature": 0.0}])  # fmt: skip
def test_an_impossible_sample_setting_is_refused(settings):
    with pytest.raises(ValueError, match="tokens >= 1 and temperature > 0"):
        sample(Even(), None, "gpt", np.array([[0]], np.int32), VOCAB, settings, seed=0)
