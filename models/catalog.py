"""The workloads by name, and each one's conf/model/<name>.yaml as plain Python values.

The one neutral loader of a model's configuration: the core, parity, the benchmarks and the
tests read a workload's hyperparameters through here, and it imports nothing above the models.
"""

from __future__ import annotations

from typing import Any

from twinbench.paths import CONF_DIR


def names() -> list[str]:
    """Every workload: the yaml files in conf/model/."""
    return sorted(p.stem for p in (CONF_DIR / "model").glob("*.yaml"))


def model_config(name: str) -> dict[str, Any]:
    """conf/model/<name>.yaml, interpolations resolved."""
    from omegaconf import OmegaConf

    return OmegaConf.to_container(OmegaConf.load(CONF_DIR / "model" / f"{name}.yaml"), resolve=True)
