"""The precision a run asked for against the dtypes its model really computed and stored in:
one check every adapter applies to what it read back (settings_report's "precision" block)."""

from __future__ import annotations

from typing import Any

from frameworks.settings import SettingError

# What mixed bfloat16 means here: products in bfloat16, weights (and so the optimizer state
# built from them) in float32.
EXPECTED = {
    "float32": {"compute_dtype": "float32", "variable_dtype": "float32"},
    "bfloat16": {"compute_dtype": "bfloat16", "variable_dtype": "float32"},
}


def precision_block(precision: str, compute: set[str], variables: set[str]) -> dict[str, Any]:
    """The record's view: asked, and every dtype seen; a run whose dtypes differ fails."""
    block = {
        "precision": precision,
        "compute_dtype": ",".join(sorted(compute)) or None,
        "variable_dtype": ",".join(sorted(variables)) or None,
    }
    for key, want in EXPECTED[precision].items():
        if block[key] is not None and block[key] != want:
            raise SettingError(f"precision={precision}: {key} {block[key]} in effect, not {want}")
    return block
