"""Framework-neutral datasets: synthetic generators and (later) real loaders, as numpy arrays.

Both backends receive the arrays returned here unchanged, and the batch order from batching.py.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchdata.dataset import Dataset

__all__ = ["Dataset", "fill_arch", "load"]


SYNTHETIC_GENERATORS = {
    "mnist": "benchdata.synthetic_mnist:generate",
    "cifar10": "benchdata.synthetic_cifar10:generate",
    "imdb": "benchdata.synthetic_imdb:generate",
    "nietzsche": "benchdata.synthetic_nietzsche:generate",
}


# Real files, verified by SHA-256 before use (benchdata/real.py, benchdata/download.py).
REAL_LOADERS = {
    "mnist": "benchdata.real:load_mnist",
    "cifar10": "benchdata.real:load_cifar10",
    "imdb": "benchdata.real:load_imdb",
    "nietzsche": "benchdata.real:load_nietzsche",
}


def load(
    name: str,
    source: str,
    seed: int,
    view: str | None = None,
    options: dict | None = None,
    synthetic_cache: Path | None = None,
) -> Dataset:
    """The dataset a model's config names, from `source` ('synthetic' or 'real').

    `view` selects the layout a model consumes (e.g. MNIST 'flat' 784-vectors or 'image' NHWC).
    `options` is the data config (conf/data/<source>.yaml): for 'real', cache_dir, mirror,
    sha256 overrides and timeout_s. Real data has the synthetic data's shapes and dtypes.
    `synthetic_cache`: a folder where synthetic data sets are kept between processes
    (benchdata/cache.py); None makes them every time. info["cache"] says which happened.
    """
    if source == "real":
        return _load_real(name, view, options)
    if source != "synthetic":
        raise ValueError(f"data source '{source}' is not available; use data=synthetic or real")
    if name not in SYNTHETIC_GENERATORS:
        raise ValueError(f"no dataset '{name}'; known: {', '.join(sorted(SYNTHETIC_GENERATORS))}")
    module_name, func = SYNTHETIC_GENERATORS[name].split(":")
    import importlib

    from benchdata import cache

    generate = getattr(importlib.import_module(module_name), func)
    dataset, how = cache.load_or_generate(
        name,
        seed,
        view,
        lambda: generate(seed=seed) if view is None else generate(seed=seed, view=view),
        synthetic_cache,
    )
    dataset.info.setdefault("source", source)
    dataset.info["cache"] = how
    return dataset


def _load_real(name: str, view: Any, options: dict | None) -> Dataset:
    if name not in REAL_LOADERS:
        raise ValueError(f"no real dataset '{name}'; known: {', '.join(sorted(REAL_LOADERS))}")
    import importlib

    from benchdata.download import FileStore

    module_name, func = REAL_LOADERS[name].split(":")
    loader = getattr(importlib.import_module(module_name), func)
    return loader(view=view, store=FileStore.from_options(options))


def fill_arch(model_cfg: dict[str, Any], dataset: Dataset) -> dict[str, Any]:
    """The model config with the sizes only the data knows filled in, and checked.

    A view reports sizes in info["dims"] (e.g. fastText's `max_features`, the text models'
    `chars`). An arch key set to null in conf/model takes the data's value; a key set to a
    number must equal it, so a config can never build a model for other data than it gets.
    """
    arch = dict(model_cfg["arch"])
    for key, value in dataset.info.get("dims", {}).items():
        if key not in arch:
            continue
        if arch[key] is None:
            arch[key] = value
        elif arch[key] != value:
            raise ValueError(
                f"model {model_cfg.get('name')}: arch {key}={arch[key]} but the "
                f"{dataset.name} data gives {value}"
            )
    unset = [k for k, v in arch.items() if v is None]
    if unset:
        raise ValueError(f"model {model_cfg.get('name')}: arch {unset} null but not in the data")
    return {**model_cfg, "arch": arch}
