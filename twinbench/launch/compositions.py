"""One composition per sweep job.

Hydra's config loader composes a job's config from conf/ every time it is asked (about 0.25 s
of CPU each on the Zen 3), and a twinbench sweep asks several times for each job: the sweeper
reads its repeats, the plan its settings, a deciding sweep its pairs, and Hydra's launcher
the job itself. A sweep of ten jobs composed fifty times. Within one sweep the same overrides
always compose to the same config, so each is composed once and every caller gets its own copy
(the launcher writes the job's number into the copy it runs).

The interleaving sweeper runs each repeat as the job's overrides plus `repeat_slot=r` last
(interleave.py), which Hydra composes afresh though it only sets that one key: such a job is the
job's composition with the key set and the override recorded, as Hydra's loader records it
(tests/test_compositions.py compares the two on conf/ itself). repeat_slot is left out of run
directory names (conf/config.yaml), so the directory name Hydra derived stays right; where it is
not left out, the job is composed in full.
"""

from __future__ import annotations

import copy
from typing import Any

from omegaconf import OmegaConf, open_dict

from twinbench.launch.interleave import SLOT_KEY

_MEMO_ATTRIBUTE = "_twinbench_compositions"


def compose_each_job_once(loader: Any) -> dict[tuple[Any, ...], Any]:
    """Make `loader.load_sweep_config` (Hydra's ConfigLoader) compose each distinct job once;
    returns the memo. Idempotent. The key is what the composition reads: the config's name, the
    sweep's own Hydra overrides and the job's overrides (callers pass equal master configs that
    are different objects)."""
    memo = getattr(loader, _MEMO_ATTRIBUTE, None)
    if memo is not None:
        return memo
    memo = {}
    compose = loader.load_sweep_config

    def composed(master_config: Any, overrides: tuple[str, ...]) -> Any:
        hydra_overrides = tuple(OmegaConf.to_container(master_config.hydra.overrides.hydra))
        key = (master_config.hydra.job.config_name, hydra_overrides, overrides)
        if key not in memo:
            slot = _slot(overrides)
            base = composed(master_config, overrides[:-1]) if slot is not None else None
            if base is not None and SLOT_KEY in _excluded_from_dir_names(base):
                memo[key] = _with_slot(base, slot, overrides[-1])
            else:
                memo[key] = compose(master_config, list(overrides))
        return memo[key]

    def load_sweep_config(master_config: Any, sweep_overrides: list[str]) -> Any:
        config = copy.deepcopy(composed(master_config, tuple(sweep_overrides)))
        # As Hydra's loader does on each composition: the sweep's resolved values (its
        # ${now:} timestamp) as the master config holds them now. The plan composes jobs
        # before the sweep's folder is named; a copy of that composition named its own, and
        # every job of README command 1 went to a sweep folder of its own second.
        OmegaConf.copy_cache(from_config=master_config, to_config=config)
        return config

    loader.load_sweep_config = load_sweep_config
    setattr(loader, _MEMO_ATTRIBUTE, memo)
    return memo


def _slot(overrides: tuple[str, ...]) -> int | None:
    """r where the job's last override is the interleaving sweeper's `repeat_slot=r`."""
    key, _, value = (overrides[-1] if overrides else "").partition("=")
    return int(value) if key == SLOT_KEY and value.isdigit() else None


def _excluded_from_dir_names(config: Any) -> list[str]:
    found = OmegaConf.select(config, "hydra.job.config.override_dirname.exclude_keys")
    return list(found) if found is not None else []


def _with_slot(base: Any, slot: int, override: str) -> Any:
    """The job's composition with `repeat_slot=slot` applied, as Hydra's loader applies a task
    override: the key set, the override appended to hydra.overrides.task."""
    config = copy.deepcopy(base)
    with open_dict(config):
        config[SLOT_KEY] = slot
        config.hydra.overrides.task.append(override)
    return config
