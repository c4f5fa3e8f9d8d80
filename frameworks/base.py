"""The common interface every framework adapter implements, and the records they return."""

from __future__ import annotations

import abc
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from benchdata import Dataset
from frameworks.timing import RunClock


class ThreadMismatchError(RuntimeError):
    """The framework runs with a thread count other than the one requested."""


@dataclass
class ThreadReport:
    intra_op: int
    inter_op: int
    native_pools: list[dict[str, Any]] = field(default_factory=list)  # threadpoolctl's view
    # How the budget was checked: read back from the framework, or, where a runtime cannot
    # report its thread count (XLA on CPU), what was set and checked instead.
    verified_by: str = "read back from the framework"


@dataclass
class TrainPlan:
    """What to train: every number already resolved, no config objects."""

    epochs: int
    batch_size: int
    steps_per_epoch: int
    eval_steps: int
    orders: Any  # int array [epochs, n_train]: the shared batch order
    seed: int
    device: str
    verbose: bool = True
    validate: bool = True  # evaluate on the test set after each epoch (conf/model `validate`)
    validate_every: int = 1  # conf/model `validate_every`: see validates()

    def validates(self, epoch: int) -> bool:
        """Whether the loops validate after `epoch` (0-based). TensorLayer's fit (print_freq)
        evaluates after the first epoch and after every k-th: (epoch + 1) == 1 or
        (epoch + 1) % k == 0; k = 1 is every epoch."""
        return self.validate and (epoch == 0 or (epoch + 1) % self.validate_every == 0)

    def validation_epochs(self) -> list[int]:
        """The 1-based epochs validates() selects (Keras' fit(validation_freq=[...]))."""
        return [e + 1 for e in range(self.epochs) if self.validates(e)]


@dataclass
class History:
    loss: list[float] = field(default_factory=list)
    accuracy: list[float] = field(default_factory=list)
    # One entry per epoch when the model validates; None after an epoch that did not
    # (TrainPlan.validates), so index i is always epoch i + 1.
    val_loss: list[float | None] = field(default_factory=list)
    val_accuracy: list[float | None] = field(default_factory=list)
    # Per epoch, what the loop fed and scored (frameworks/loop_print.py LoopPrint.epochs()).
    loop: list[dict[str, Any]] = field(default_factory=list)


TrainStep = Callable[[np.ndarray, np.ndarray], float]  # one optimizer step on a batch -> loss


class Backend(abc.ABC):
    """Everything the worker (twinbench/worker/main.py), parity (twinbench/parity/), the kernel
    probe and benchmarks/ call on an adapter, one return shape each. An adapter module imports
    its framework at the top; frameworks.registry names it and loads it lazily."""

    name: str  # the registry name (frameworks/registry.py)
    # float32, or bfloat16 mixed precision (twinbench/config/precision.py); set before build
    precision: str = "float32"

    # ---------------------------------------------------------------- process set-up

    @abc.abstractmethod
    def configure_threads(self, intra_op: int, inter_op: int) -> ThreadReport:
        """Apply the thread settings, then read them back from the running framework (or say in
        ThreadReport.verified_by how the budget was verified where it cannot be read back);
        raise ThreadMismatchError where the framework runs another count."""

    @abc.abstractmethod
    def apply_settings(self, requested: dict[str, Any]) -> None:
        """The backend's software settings (conf/backend/<name>.yaml without its name)."""

    def set_precision(self, precision: str) -> None:
        """float32, or mixed bfloat16: bfloat16 compute, float32 master weights, loss and
        optimizer state. Called before build; the adapters read the dtypes back in
        settings_report ("precision" block) and fail the run on a mismatch."""
        self.precision = precision

    @abc.abstractmethod
    def settings_report(self) -> dict[str, Any]:
        """Every setting as read back after training; raises SettingError on a mismatch."""

    @abc.abstractmethod
    def describe(self) -> dict[str, Any]:
        """Framework version and build facts (oneDNN/MKL, CUDA) for the record; always has
        "framework" (the registry name) and "version"."""

    @abc.abstractmethod
    def check_device(self, device: str) -> None:
        """Raise where `device` ("cpu" or "cuda") is not available to this framework."""

    def device_begin(self, device: str) -> None:
        """Just before training: a GPU adapter resets its device memory peak here."""
        return None

    def device_report(self, device: str) -> dict[str, Any] | None:
        """After training: the GPU's name, driver, library versions and memory peak (the
        record's device_info); None on the CPU and for adapters that run on the CPU only."""
        return None

    @abc.abstractmethod
    def seed(self, seed: int) -> None: ...

    def fresh_session(self) -> None:
        """Forget every model built so far in this process (names, graphs, caches), so that the
        next build is as in a fresh process: parity builds several models in one stage process.
        Nothing to forget by default (native torch keeps no global model state)."""
        return None

    # ---------------------------------------------------------------- the model

    @abc.abstractmethod
    def build(self, model_name: str, model_cfg: dict[str, Any], device: str) -> Any:
        """The model named `model_name`, built from models/<name>.py with plain numbers."""

    @abc.abstractmethod
    def count_params(self, model: Any) -> int:
        """Weights as Keras counts them (BatchNorm's moving statistics included)."""

    @abc.abstractmethod
    def export_weights(self, model: Any, model_name: str) -> dict[str, np.ndarray]:
        """Canonical weights: '<layer>/<weight>' in Keras' layout
        (frameworks/torch_native/weight_layout.py maps them to torch's)."""

    @abc.abstractmethod
    def import_weights(
        self, model: Any, model_name: str, weights: dict[str, np.ndarray]
    ) -> None: ...

    @abc.abstractmethod
    def predict(self, model: Any, model_name: str, x: np.ndarray) -> np.ndarray:
        """The model's output probabilities (primary head) in inference mode, as numpy."""

    def predict_batch(self, model: Any, model_name: str, x: np.ndarray) -> np.ndarray:
        """predict as users call it batch after batch (text generation): the framework's own
        inference path, compiled where it compiles one. By default, predict."""
        return self.predict(model, model_name, x)

    # ---------------------------------------------------------------- training

    @abc.abstractmethod
    def train(
        self,
        model: Any,
        model_cfg: dict[str, Any],
        data: Dataset,
        plan: TrainPlan,
        clock: RunClock,
        progress: Callable[[int, History], None] | None = None,
    ) -> History:
        """Train as a user of this framework would, timing through `clock`; `progress` is called
        after each epoch with the 0-based epoch and the history so far."""

    @abc.abstractmethod
    def make_step(self, model: Any, model_cfg: dict[str, Any]) -> TrainStep:
        """A fresh optimizer for `model` and one training step through it: the same update the
        training loop runs, on numpy batches, returning the batch's loss as a float."""

    @abc.abstractmethod
    def learning_rates(self, steps: list[int]) -> list[float]:
        """The learning rate the last make_step's optimizer applies at each of `steps` (0-based
        optimizer steps), read from the optimizer itself, its state left unchanged."""

    # ---------------------------------------------------------------- stochastic probes
    # Not abstract: parity's stochastic checks (twinbench/parity/draws.py) call them; an adapter
    # without them fails those checks by name, not at import.

    def dropout_probe(self, model: Any, units: int) -> list[tuple[str, float, np.ndarray]]:
        """Every dropout layer of `model`, in the model's order: its name, its declared rate,
        and its training-mode output on `units` ones (flat), as the training loop applies it."""
        raise NotImplementedError(f"{self.name} has no dropout probe")

    def attention_dropout_probe(
        self, model: Any, model_name: str, tokens: int, draws: int, seed: int
    ) -> list[tuple[str, float, dict[str, float]]] | None:
        """Every attention layer's dropout by its effect on the kernel that runs: its name, its
        declared rate, and the attention result's variance over `draws` training-mode calls
        against an explicit reference at that rate (torch_native/stochastic.py says how). None
        where this backend has no such probe yet (parity then says it was not measured)."""
        return None

    def dropout_in_forward(self, model: Any, x: np.ndarray) -> dict[str, dict[str, float]]:
        """Each dropout layer with a rate in one training-mode forward on batch `x`, by its
        effect: {"rate", "calls", "inputs" (nonzero values it was handed), "zeroed" (of those)}.
        Parity judges the zeroed share against the rate (twinbench/parity/distributions.py):
        a layer the forward skips, or calls so that it drops nothing, fails there."""
        raise NotImplementedError(f"{self.name} has no dropout-in-forward probe")

    def activations(
        self, model: Any, model_name: str, x: np.ndarray, layers: list[str]
    ) -> dict[str, np.ndarray]:
        """The outputs of the named `layers` (models/<name>.py PARITY_LAYERS) on batch `x` in
        inference mode, as numpy: parity compares them layer by layer, so a difference in one
        block shows where it starts, not only in the final probabilities."""
        raise NotImplementedError(f"{self.name} has no per-layer probe")

    def attention_alone(
        self,
        model: Any,
        model_name: str,
        layers: list[str],
        make_input: Callable[[int], np.ndarray],
    ) -> dict[str, np.ndarray]:
        """Each named attention layer called alone, in inference mode, on `make_input(width)`
        (batch, positions, width): a seeded input whose scores spread, where the model's own
        probe batch gives near-uniform attention that hides how the scores are scaled."""
        raise NotImplementedError(f"{self.name} has no attention-alone probe")

    def augment_probe(
        self, model_cfg: dict[str, Any], x: np.ndarray, seed: int
    ) -> np.ndarray | None:
        """Batch `x` through the training-time augmentation this backend's loop applies (its
        own code, seeded with `seed`), or None where the model has none."""
        raise NotImplementedError(f"{self.name} has no augmentation probe")

    def validation_probe(self, model_cfg: dict[str, Any], x: np.ndarray) -> np.ndarray:
        """Image batch `x`, as this backend's validation pass (the code its training loop
        validates with) hands it to the network, concatenated in order: never augmented, so it
        should equal `x` exactly."""
        raise NotImplementedError(f"{self.name} has no validation probe")

    # ---------------------------------------------------------------- probes

    @abc.abstractmethod
    def matmul_gflops(self, size: int, seconds: float, device: str) -> float:
        """Best float32 GFLOP/s of square matmuls with this run's threads."""
