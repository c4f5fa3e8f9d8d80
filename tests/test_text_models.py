"""Every text model trains a few steps from the CLI in both backends, with the parameter count of
the original Keras model (fixed, or from the data's vocabulary as the examples compute it)."""

from __future__ import annotations

import math

import pytest


def expected_params(model: str, dims: dict[str, int]) -> int:
    """The Keras examples' parameter counts, from the sizes the data reports."""
    if model == "fasttext":  # Embedding(max_features, 50) + Dense(50 -> 1)
        return 50 * dims["max_features"] + 51
    chars = dims.get("chars")
    if model == "charlstm":  # LSTM(chars -> 128) + Dense(128 -> chars)
        return 4 * 128 * (chars + 128 + 1) + 128 * chars + chars
    if model == "textgen":  # Embedding, LSTM(300 -> 128), aux Dense, 512 + BN, 256 + BN, main Dense
        return (
            chars * 300
            + 4 * 128 * (300 + 128 + 1)
            + (128 * chars + chars)
            + 128 * 512
            + 4 * 512
            + 512 * 256
            + 4 * 256
            + (256 * chars + chars)
        )
    return 2_658_945  # bilstm: imdb_bidirectional_lstm.py's model.summary()


@pytest.mark.parametrize("backend", ["torch", "tensorflow"])
@pytest.mark.parametrize("model", ["fasttext", "bilstm", "charlstm", "textgen"])
def test_text_model_trains_from_the_cli(model, backend, every_backend_sweeps):
    """The model's run in the shared tiny sweep (conftest's `every_backend_sweeps`, the same
    command line this test ran on its own until 2026-12-03): what the text workloads add."""
    r = every_backend_sweeps(backend)[2][model]
    assert r["status"] == "ok" and (r["backend"], r["model"]) == (backend, model)
    dims = r["data"]["dims"]
    assert r["params"] == expected_params(model, dims)
    if model in ("charlstm", "textgen"):
        assert dims["chars"] == 57  # lowercased nietzsche.txt's character count
    if model == "fasttext":
        assert dims["max_features"] > 20_001  # bigram ids beyond the 20,000 words
    assert r["expected_params"] == (2_658_945 if model == "bilstm" else None)
    assert r["steps_per_epoch"] == 2
    history = r["history"]
    assert all(math.isfinite(v) for v in history["loss"] + history["val_loss"])
    assert all(0.0 <= v <= 1.0 for v in history["accuracy"] + history["val_accuracy"])
    # the 2017 text scripts ran no validation pass, so none here (docs/usage/workloads.md)
    assert len(history["val_loss"]) == (0 if model in ("charlstm", "textgen") else 1)


def test_textgen_formula_matches_its_docstring():
    assert expected_params("textgen", {"chars": 57}) == 686 * 57 + 419_328 == 458_430
    assert expected_params("charlstm", {"chars": 57}) == 102_585
