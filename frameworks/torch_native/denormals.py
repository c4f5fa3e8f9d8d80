"""Subnormal (denormal) floats on torch's runtime: computed, as torch comes, or flushed to zero
(`backend.flush_denormal`), for native torch and Keras on torch alike. TensorFlow always flushes
them; on an Intel host torch's MLP step slowed 1.7x over a full run computing them
(docs/findings/2026-12-07-subnormals.md)."""

from __future__ import annotations

import torch

from frameworks.settings import SettingError


def apply(flush: bool) -> None:
    """torch.set_flush_denormal, which returns False where the CPU cannot flush (no SSE3): an
    error then, never a silent no-op."""
    if not torch.set_flush_denormal(flush):
        raise SettingError("backend.flush_denormal=true: this CPU cannot flush")


def in_effect() -> bool:
    """Whether this thread flushes: the product of two tiny floats is a subnormal, or 0."""
    return (torch.tensor([1e-30]) * torch.tensor([1e-9])).item() == 0.0
