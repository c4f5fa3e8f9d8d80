"""PyTorch adapter: thread control, build, and a plain idiomatic training loop.

The loop is the one pytorch/examples' mnist/main.py teaches: zero_grad, forward, loss, backward,
step. Data sits in tensors once (host-to-device copy before any clock starts); each step gathers
its batch by index, as a DataLoader with shuffle would.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import torch
from torch import nn

import models
from benchdata import Dataset
from frameworks import settings
from frameworks.base import (
    Backend,
    History,
    ThreadMismatchError,
    ThreadReport,
    TrainPlan,
    TrainStep,
)
from frameworks.loop_print import LoopPrint
from frameworks.precision_check import precision_block
from frameworks.timing import RunClock
from frameworks.torch_native import augment as torch_augment
from frameworks.torch_native import cuda as torch_cuda
from frameworks.torch_native import denormals, layer_probes, weight_layout
from frameworks.torch_native import evaluate as torch_evaluate
from frameworks.torch_native import optimizers as torch_optimizers
from frameworks.torch_native import precision as torch_precision
from frameworks.torch_native import stochastic as torch_stochastic
from frameworks.torch_native.compiled import CompiledForward
from frameworks.torch_native.cuda import device_sync
from frameworks.torch_native.objective import Objective


def _native_pools() -> list[dict[str, Any]]:
    from threadpoolctl import threadpool_info

    return [
        {k: pool.get(k) for k in ("user_api", "internal_api", "prefix", "num_threads")}
        for pool in threadpool_info()
    ]


def _best_rate(op, flop: int, seconds: float) -> float:
    """Highest GFLOP/s of `op` over repeated timings for about `seconds`."""
    import time

    best, deadline = 0.0, time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        t0 = time.perf_counter_ns()
        op()
        best = max(best, flop / max(time.perf_counter_ns() - t0, 1))
    return best  # flop per ns = GFLOP/s


def counted_weights(model: nn.Module) -> list[torch.Tensor]:
    """The tensors a Keras model would count as its weights: trainable parameters and
    BatchNorm's moving statistics, which Keras keeps as (non-trainable) weights and torch as
    buffers. Frozen parameters are not weights of the Keras model: the zero bias_hh torch's
    LSTM carries beside Keras' single bias (models/torch_init.py)."""
    stats = [b for n, b in model.named_buffers() if n.endswith(("running_mean", "running_var"))]
    return [p for p in model.parameters() if p.requires_grad] + stats


def configure_torch_threads(intra_op: int, inter_op: int) -> ThreadReport:
    """torch's pools set and read back; Keras on torch shares them (keras/on_torch.py)."""
    torch.set_num_threads(intra_op)
    # set_num_interop_threads may only be called before any inter-op work has started; the
    # worker calls this right after import, so it holds.
    torch.set_num_interop_threads(inter_op)
    report = ThreadReport(torch.get_num_threads(), torch.get_num_interop_threads(), _native_pools())
    if (report.intra_op, report.inter_op) != (intra_op, inter_op):
        raise ThreadMismatchError(
            f"torch runs intra-op {report.intra_op}, inter-op {report.inter_op}; "
            f"requested {intra_op}, {inter_op}"
        )
    omp = [p["num_threads"] for p in report.native_pools if p["user_api"] == "openmp"]
    if any(n != intra_op for n in omp):
        raise ThreadMismatchError(f"OpenMP pools run {omp} threads; requested {intra_op}")
    return report


class TorchBackend(Backend):
    name = "torch"
    settings: dict[str, Any] = {}  # noqa: RUF012 -- replaced per run by apply_settings

    def configure_threads(self, intra_op: int, inter_op: int) -> ThreadReport:
        return configure_torch_threads(intra_op, inter_op)

    def apply_settings(self, requested: dict[str, Any]) -> None:
        """Process-wide switches now; compile and fused optimizers when training starts."""
        self.settings = dict(requested)
        self._optimizer, self._schedule = None, None
        self._compiled: CompiledForward | None = None
        self._compute_dtypes: set[str] = set()
        torch.backends.mkldnn.enabled = bool(requested.get("mkldnn", True))
        denormals.apply(bool(requested.get("flush_denormal", False)))
        torch_cuda.apply_tf32(requested.get("tf32"))

    def settings_report(self) -> dict[str, Any]:
        """Every setting as read back from torch after training; a mismatch fails the run."""
        from torch._dynamo.utils import counters

        graphs = counters["stats"]["unique_graphs"]
        fused = bool(self._optimizer and self._optimizer.defaults.get("fused"))
        report = {
            "mkldnn": torch.backends.mkldnn.enabled,
            "flush_denormal": denormals.in_effect(),
            "compile": self._compiled is not None and graphs > 0,
            "compiled_graphs": graphs,
            "compile_mode": self.settings.get("compile_mode", "default"),
            # Dynamo traced recurrent layers too (nn.LSTM): see compiled.py; None: eager
            "compile_allow_rnn": self._compiled.allow_rnn if self._compiled else None,
            "fused_optimizer": fused,
            **torch_cuda.tf32_in_effect(),
            "precision": precision_block(
                self.precision,
                self._compute_dtypes,
                {torch_precision.dtype_name(p.dtype) for p in self._optimizer_params()},
            ),
        }
        for key in ("mkldnn", "flush_denormal", "compile"):
            want = bool(self.settings.get(key, key == "mkldnn"))
            if report[key] != want:
                raise settings.SettingError(
                    f"backend.{key}={want} requested, {report[key]} in effect"
                )
        if why := torch_cuda.check_tf32(self.settings.get("tf32"), report):
            raise settings.SettingError(why)
        if self.settings.get("fused_optimizer") is True and not fused:
            raise settings.SettingError("backend.fused_optimizer=true requested, not in effect")
        return report

    def describe(self) -> dict[str, Any]:
        return {
            "framework": "torch",
            "version": torch.__version__,
            "build": {
                "mkldnn (oneDNN)": torch.backends.mkldnn.is_available(),
                "mkl": torch.backends.mkl.is_available(),
                "openmp": torch.backends.openmp.is_available(),
                "cuda": torch.version.cuda,
                "parallel_info": torch.__config__.parallel_info().splitlines()[:12],
            },
        }

    def seed(self, seed: int) -> None:
        torch.manual_seed(seed)

    def check_device(self, device: str) -> None:
        if device == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("device=cuda but torch sees no CUDA device (CPU-only build?)")

    def device_begin(self, device: str) -> None:
        torch_cuda.reset_peak(device)

    def device_report(self, device: str) -> dict[str, Any] | None:
        return torch_cuda.device_block(device)

    def build(self, model_name: str, model_cfg: dict[str, Any], device: str) -> nn.Module:
        return models.get(model_name).torch_model(**model_cfg["arch"]).to(device)

    def count_params(self, model: nn.Module) -> int:
        return sum(t.numel() for t in counted_weights(model))

    def export_weights(self, model: nn.Module, model_name: str) -> dict[str, np.ndarray]:
        state = {k: v.detach().cpu().numpy() for k, v in model.state_dict().items()}
        return weight_layout.torch_state_to_canonical(models.get(model_name).LAYERS, state)

    def import_weights(
        self, model: nn.Module, model_name: str, weights: dict[str, np.ndarray]
    ) -> None:
        state = weight_layout.canonical_to_torch_state(models.get(model_name).LAYERS, weights)
        model.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()}, strict=False)

    def dropout_probe(self, model: nn.Module, units: int) -> list[tuple[str, float, np.ndarray]]:
        return torch_stochastic.dropout_probe(model, units)

    def attention_dropout_probe(
        self, model: nn.Module, model_name: str, tokens: int, draws: int, seed: int
    ) -> list[tuple[str, float, dict[str, float]]]:
        return torch_stochastic.attention_dropout_probe(model, tokens, draws, seed)

    def dropout_in_forward(self, model: nn.Module, x: np.ndarray) -> dict[str, dict[str, float]]:
        return torch_stochastic.dropout_in_forward(model, x)

    @torch.inference_mode()
    def activations(
        self, model: nn.Module, model_name: str, x: np.ndarray, layers: list[str]
    ) -> dict[str, np.ndarray]:
        return layer_probes.activations(model, x, layers)

    def attention_alone(
        self,
        model: nn.Module,
        model_name: str,
        layers: list[str],
        make_input: Callable[[int], np.ndarray],
    ) -> dict[str, np.ndarray]:
        return layer_probes.attention_alone(model, layers, make_input)

    def augment_probe(self, model_cfg: dict[str, Any], x: np.ndarray, seed: int):
        return torch_stochastic.augment_probe(model_cfg, x, seed)

    def validation_probe(self, model_cfg: dict[str, Any], x: np.ndarray) -> np.ndarray:
        return torch_stochastic.validation_probe(model_cfg, x, self.precision)

    def make_step(self, model: nn.Module, model_cfg: dict[str, Any]) -> TrainStep:
        """tensor_step on numpy batches, returning the loss as a float (parity's view)."""
        step, _ = self.tensor_step(model, model_cfg)

        def numpy_step(x: np.ndarray, y: np.ndarray) -> float:
            as_tensor = (torch.from_numpy(np.ascontiguousarray(a)) for a in (x, y))
            return float(step(*as_tensor)[0].item())

        return numpy_step

    def tensor_step(self, model: nn.Module, model_cfg: dict[str, Any]):
        """One training step on tensors -> (loss, logits), and the objective that scores it: the
        same code the benchmark loop, the profiler and the parity tests run."""
        objective = Objective.for_model(model_cfg)
        # AdamW's decay tells embedding tables from kernels (optimizer_formula.decays)
        tables = {id(m.weight) for m in model.modules() if isinstance(m, nn.Embedding)}
        optimizer, schedule = torch_optimizers.make_optimizer(
            model.parameters(),
            model_cfg["optimizer"],
            self.settings.get("fused_optimizer", False),
            frozenset(tables),
        )
        self._optimizer, self._schedule = optimizer, schedule
        clip = model_cfg["optimizer"].get("clip_global_norm", 0.0)
        forward = model
        if self.settings.get("compile"):
            # Compiles lazily on the first call: that cost lands in the first step, which the
            # measurement reports as start-up, never as steady state.
            mode = self.settings.get("compile_mode", "default")
            forward = self._compiled = CompiledForward(model, mode)
        # Training mode (BatchNorm batch statistics, dropout): Keras' train_on_batch and fit
        # train with training=True whatever ran before, e.g. an inference-mode predict.
        model.train()
        device = next(model.parameters()).device.type
        computed = self._compute_dtypes = set()

        def step(x: torch.Tensor, y: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
            optimizer.zero_grad(set_to_none=True)
            loss, logits, produced = torch_precision.forward_loss(
                forward, objective, x, y, self.precision, device
            )
            computed.add(produced)  # evidence for the record
            loss.backward()
            if clip:  # Keras' global_clipnorm: the norm over every gradient together
                nn.utils.clip_grad_norm_(model.parameters(), clip)
            optimizer.step()
            if schedule is not None:
                schedule.step()
            if isinstance(logits, dict):
                return loss.detach(), {k: v.detach() for k, v in logits.items()}
            return loss.detach(), logits.detach()

        return step, objective

    def _optimizer_params(self):
        """The parameters the optimizer updates: float32 master weights in a mixed run."""
        if self._optimizer is None:
            return []
        return [p for group in self._optimizer.param_groups for p in group["params"]]

    def optimizer_and_schedule(self):
        """The optimizer and learning-rate schedule of the last make_step."""
        return self._optimizer, self._schedule

    def learning_rates(self, steps: list[int]) -> list[float]:
        """The scheduler moved to each step and back (torch has no read-only query)."""
        import warnings

        optimizer, schedule = self._optimizer, self._schedule
        if schedule is None:
            return [float(optimizer.param_groups[0]["lr"])] * len(steps)
        saved = schedule.last_epoch, [g["lr"] for g in optimizer.param_groups]
        rates = []
        with warnings.catch_warnings():  # "scheduler.step() before optimizer.step()"
            warnings.simplefilter("ignore")
            for t in steps:
                schedule.last_epoch = t - 1
                schedule.step()
                rates.append(float(optimizer.param_groups[0]["lr"]))
        schedule.last_epoch = saved[0]
        for group, lr in zip(optimizer.param_groups, saved[1], strict=True):
            group["lr"] = lr
        return rates

    def train(
        self,
        model: nn.Module,
        model_cfg: dict[str, Any],
        data: Dataset,
        plan: TrainPlan,
        clock: RunClock,
        progress=None,
    ) -> History:
        device = torch.device(plan.device)
        # CUDA kernels are queued asynchronously: the clock synchronises before each read.
        clock.sync = device_sync(device.type)
        step, objective = self.tensor_step(model, model_cfg)
        augment = torch_augment.make_augment(model_cfg.get("augment"), plan.seed, device)
        x_train, y_train = (torch.from_numpy(a).to(device) for a in (data.x_train, data.y_train))
        x_test, y_test = (torch.from_numpy(a).to(device) for a in (data.x_test, data.y_test))
        bs, history = plan.batch_size, History()
        fed = LoopPrint()  # what this loop gathers and scores (frameworks/loop_print.py)

        for epoch in range(plan.epochs):
            order = torch.from_numpy(plan.orders[epoch]).to(device)
            model.train()
            loss_sum = torch.zeros((), device=device)
            correct = torch.zeros((), dtype=torch.int64, device=device)
            seen = labels = 0
            clock.epoch_begin()
            for i in range(plan.steps_per_epoch):
                idx = order[i * bs : (i + 1) * bs]
                x, y = x_train[idx], y_train[idx]
                first = (x.cpu().numpy(), y.cpu().numpy()) if i == 0 else None
                fed.batch(epoch, i, idx.cpu().numpy(), first)
                if augment is not None:  # training batches only (torch_native/augment.py)
                    x = augment(x)
                loss, logits = step(x, y)
                loss_sum += loss * len(y)
                correct += objective.correct(logits, y)
                seen += len(y)
                labels += y.numel()  # a label per position for sequence targets (gpt)
                clock.step_end()
            if plan.validates(epoch):
                clock.validation_begin()
                val_loss, val_acc, scored = torch_evaluate.evaluate(
                    model, objective, x_test, y_test, bs, plan.eval_steps, self.precision
                )
                fed.validated(epoch, scored)
                history.val_loss.append(val_loss)
                history.val_accuracy.append(val_acc)
            elif plan.validate:  # an epoch between validations (validate_every): no value
                history.val_loss.append(None)
                history.val_accuracy.append(None)
            clock.epoch_end()
            history.loss.append(loss_sum.item() / seen)
            history.accuracy.append(correct.item() / labels)
            if progress is not None:
                progress(epoch, history)
        history.loop = fed.epochs()
        return history

    @torch.inference_mode()
    def matmul_gflops(self, size: int, seconds: float, device: str) -> float:
        """Best GFLOP/s of square matmuls with this run's threads: the machine's peak. float32
        on the CPU; on a GPU the run's own precision (bfloat16 GEMMs for a bf16 run; float32
        under the run's TF32 policy otherwise), so fraction-of-peak compares like with like."""
        dtype = torch.bfloat16 if device == "cuda" and self.precision == "bfloat16" else None
        a, b = (torch.randn(size, size, device=device, dtype=dtype) for _ in range(2))
        sync = device_sync(device)
        torch.mm(a, b)  # warm-up: thread pool start, kernel selection
        sync()
        return _best_rate(lambda: (torch.mm(a, b), sync()), 2 * size**3, seconds)

    @torch.inference_mode()
    def predict(self, model: nn.Module, model_name: str, x: np.ndarray) -> np.ndarray:
        """Probabilities (the Keras model's output), in inference mode."""
        model.eval()
        logits = model(torch.from_numpy(x))
        if isinstance(logits, dict):  # several heads: the primary one is the prediction
            logits = logits[models.get(model_name).PRIMARY_OUTPUT]
        out = models.get(model_name).OUTPUT
        probs = torch.softmax(logits, -1) if out == "softmax" else torch.sigmoid(logits)
        return probs.numpy()
