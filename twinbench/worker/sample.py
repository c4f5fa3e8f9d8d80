"""Text sampled from a trained language model, timed apart from training (conf/model `sample`).

As nanoGPT's sample.py and the 2017 text generators: after the last timed step, generate
characters one at a time, each from a forward pass over the last context window (no key/value
cache, as nanoGPT's `generate`), drawing the next character from the model's probabilities at the
last position. The draw is numpy's, seeded by the run's seed, so every backend samples the same
way from its own model; the forward passes are the backend's own inference path (`predict_batch`:
Keras' predict_on_batch, torch's module in inference mode). The record keeps
the characters per second and the text.
"""

from __future__ import annotations

import time
from typing import Any

import numpy as np

NS_PER_S = 1e9


def sample(
    backend: Any,
    model: Any,
    model_name: str,
    prompt: np.ndarray,
    vocabulary: str,
    settings: dict[str, Any],
    seed: int,
) -> dict[str, Any]:
    """`settings["tokens"]` characters after `prompt` (one window of ids), at
    `settings["temperature"]`: the sample block of the record."""
    tokens, temperature = int(settings["tokens"]), float(settings["temperature"])
    if tokens < 1 or temperature <= 0:
        raise ValueError(f"sample needs tokens >= 1 and temperature > 0, got {dict(settings)}")
    rng = np.random.default_rng(seed)
    context = prompt.shape[-1]
    ids = [int(i) for i in prompt.reshape(-1)]
    # One untimed pass first: a compiled inference path traces on its first call; that cost is
    # kept apart, as training's first step is
    first = time.perf_counter_ns()
    backend.predict_batch(model, model_name, np.asarray(ids[-context:], dtype=prompt.dtype)[None])
    start = time.perf_counter_ns()
    for _ in range(tokens):
        window = np.asarray(ids[-context:], dtype=prompt.dtype)[None]
        probs = np.asarray(backend.predict_batch(model, model_name, window), np.float64)[0, -1]
        probs = probs ** (1.0 / temperature)  # softmax(logits / T), from softmax(logits)
        ids.append(int(rng.choice(probs.size, p=probs / probs.sum())))
    seconds = (time.perf_counter_ns() - start) / NS_PER_S
    new = ids[context:]
    return {
        "tokens": tokens,
        "seconds": seconds,
        "tokens_per_s": tokens / seconds,
        "first_call_s": (start - first) / NS_PER_S,
        "temperature": temperature,
        "prompt": "".join(vocabulary[i] for i in ids[:context]),
        "text": "".join(vocabulary[i] for i in new),
    }
