"""The common interface every framework adapter implements, and the records they return."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol

from benchdata import Dataset
from frameworks.timing import RunClock


class ThreadMismatchError(RuntimeError):
    """The framework runs with a thread count other than the one requested."""


@dataclass
class ThreadReport:
    intra_op: int
    inter_op: int
    native_pools: list[dict[str, Any]] = field(default_factory=list)  # threadpoolctl's view


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


class Backend(Protocol):
    name: str

    def configure_threads(self, intra_op: int, inter_op: int) -> ThreadReport:
        """Apply the thread settings, then read them back from the running framework."""

    def describe(self) -> dict[str, Any]:
        """Framework version and build facts (oneDNN/MKL, CUDA) for the record."""

    def seed(self, seed: int) -> None: ...

    def build(self, model_name: str, model_cfg: dict[str, Any], device: str) -> Any:
        """The model named `model_name`, built from models/<name>.py with plain numbers."""

    def count_params(self, model: Any) -> int: ...

    def train(
        self,
        model: Any,
        model_cfg: dict[str, Any],
        data: Dataset,
        plan: TrainPlan,
        clock: RunClock,
    ) -> History:
        """Train as a user of this framework would, timing through `clock`."""
