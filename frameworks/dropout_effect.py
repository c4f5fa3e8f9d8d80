"""The figures of one dropout site measured alone (the model in inference mode but for it, on two
copies of the probe rows in one batch), from plain arrays: both halves' `_output_change`
(torch_native/stochastic.py, keras/stochastic.py) hand their framework's tensors over as numpy,
so the arithmetic parity judges is written once."""

from __future__ import annotations

import numpy as np


def site_figures(out: np.ndarray, handed: list[np.ndarray]) -> dict[str, float]:
    """`out`: the model's output on both copies (first half, second half); `handed`: what the site
    was handed in that forward. `output_change`: the copies' mean absolute difference over their
    mean magnitude (0 when what the site returns never reaches the output). `handed_*`: the size
    (per copy), root mean square and mean of its input, fixed with every other dropout off, so
    the same site of the other half, on the same weights, is handed the same figures
    (twinbench/parity/dropout_inputs.py)."""
    out = np.asarray(out, np.float64)
    first, second = out[: len(out) // 2], out[len(out) // 2 :]
    scale = float(np.abs(first).mean())
    given = np.concatenate([np.asarray(h, np.float64).reshape(-1) for h in handed] or [[]])
    return {
        "output_change": float(np.abs(first - second).mean()) / scale if scale > 0 else 0.0,
        "handed_values": given.size // 2,
        "handed_rms": float(np.sqrt(np.mean(np.square(given)))) if given.size else 0.0,
        "handed_mean": float(given.mean()) if given.size else 0.0,
    }
