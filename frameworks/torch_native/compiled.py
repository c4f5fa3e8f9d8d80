"""torch.compile for the adapter's training step, with recurrent layers traced too.

By default Dynamo leaves nn.LSTM/GRU/RNN to eager, and an LSTM model then compiles no graph at
all (the bilstm cell of the 2026-12-01 matrix). Here Dynamo's `allow_rnn` is on while the model
traces, patched per call, never process-wide; the value in effect is read back for the record.
Traced, the recurrence is unrolled over the sequence, so its compile grows with the sequence
length (bilstm, 100 steps: minutes on one core).
"""

from __future__ import annotations

from typing import Any

import torch


class CompiledForward:
    """The compiled model, called with allow_rnn on; `allow_rnn` is what Dynamo had in effect
    during the last call (None before the first)."""

    def __init__(self, model: torch.nn.Module, mode: str) -> None:
        self.compiled = torch.compile(model, mode=mode)
        self.allow_rnn: bool | None = None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        import torch._dynamo

        with torch._dynamo.config.patch(allow_rnn=True):
            self.allow_rnn = torch._dynamo.config.allow_rnn
            return self.compiled(*args, **kwargs)
