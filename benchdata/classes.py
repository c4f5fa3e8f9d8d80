"""How many classes each labelled dataset has, known without loading it: a model's class count
is checked against it before a run starts (twinbench/config/model_values.py)."""

from __future__ import annotations

from benchdata import synthetic_cifar10, synthetic_mnist


def classes_of(dataset: str | None) -> int | None:
    """The number of classes a labelled image set has (its labels are 0..n-1); None for the text
    sets, whose targets the model's own view defines. Known without loading the data, so a
    model's class count is checked before a run starts."""
    return {"mnist": synthetic_mnist.CLASSES, "cifar10": synthetic_cifar10.CLASSES}.get(
        dataset or ""
    )
