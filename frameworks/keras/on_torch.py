"""Keras 3 on PyTorch (KERAS_BACKEND=torch): the Keras models, compile and fit of
frameworks/keras/common.py, run by torch's kernels and thread pools.

Beside native torch (frameworks/torch_native/backend.py) it shows the Keras API's cost on the same
runtime; beside Keras on TensorFlow and JAX, the runtime's effect under the same model code.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

os.environ["KERAS_BACKEND"] = "torch"  # before keras loads; KerasBackend checks it took
import torch

from frameworks.base import History, ThreadReport, TrainPlan
from frameworks.keras.common import KerasBackend
from frameworks.settings import SettingError
from frameworks.timing import RunClock
from frameworks.torch_native import cuda as torch_cuda
from frameworks.torch_native import denormals
from frameworks.torch_native.backend import configure_torch_threads


class KerasTorchBackend(KerasBackend):
    name = "keras_torch"
    runtime = "torch"

    def configure_threads(self, intra_op: int, inter_op: int) -> ThreadReport:
        """Keras' torch backend runs in torch's own pools: set and read back as native torch."""
        return configure_torch_threads(intra_op, inter_op)

    def describe(self) -> dict[str, Any]:
        return {
            **super().describe(),
            "version": torch.__version__,
            "build": {
                "mkldnn (oneDNN)": torch.backends.mkldnn.is_available(),
                "mkl": torch.backends.mkl.is_available(),
                "cuda": torch.version.cuda,
            },
        }

    def check_device(self, device: str) -> None:
        if device == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("device=cuda but torch sees no CUDA device (CPU-only build?)")
        # Read back where Keras will compute (KERAS_TORCH_DEVICE, set by the worker before
        # import): Keras picks CUDA by itself whenever torch sees a GPU.
        from keras.src.backend.torch.core import get_device

        if not str(get_device()).startswith(device):
            raise RuntimeError(f"device={device} but Keras on torch computes on {get_device()}")

    def apply_settings(self, requested: dict[str, Any]) -> None:
        """Keras' own settings take effect in compile(); TF32 and subnormal flushing are
        torch's, set now, as native torch sets them."""
        super().apply_settings(requested)
        torch_cuda.apply_tf32(requested.get("tf32"))
        denormals.apply(bool(requested.get("flush_denormal", False)))

    def settings_report(self) -> dict[str, Any]:
        report = {
            **super().settings_report(),
            **torch_cuda.tf32_in_effect(),
            "flush_denormal": denormals.in_effect(),
        }
        if why := torch_cuda.check_tf32(self.settings.get("tf32"), report):
            raise SettingError(why)
        if report["flush_denormal"] != bool(self.settings.get("flush_denormal", False)):
            raise SettingError(
                f"backend.flush_denormal={self.settings.get('flush_denormal')} requested, "
                f"{report['flush_denormal']} in effect"
            )
        return report

    def clock_sync(self, device: str) -> Callable[[], None]:
        """fit's callbacks read the clock after Keras queued the step's kernels: on a GPU the
        clock waits for them (frameworks/timing.py)."""
        return torch_cuda.device_sync(device)

    def train(
        self,
        model: Any,
        model_cfg: dict[str, Any],
        data: Any,
        plan: TrainPlan,
        clock: RunClock,
        progress=None,
    ) -> History:
        # Set here, not in keras/common.py: that file is certified code (a parity certificate
        # hashes it), and the sync changes no math.
        clock.sync = self.clock_sync(plan.device)
        return super().train(model, model_cfg, data, plan, clock, progress)

    def device_begin(self, device: str) -> None:
        torch_cuda.reset_peak(device)

    def device_report(self, device: str) -> dict[str, Any] | None:
        return torch_cuda.device_block(device)
