"""A sweep composes each job's config once (twinbench/launch/compositions.py): Hydra's loader is
asked for the same job by the sweeper, the plan, its batch check and the launcher."""

from __future__ import annotations

from omegaconf import OmegaConf

from twinbench.launch.compositions import compose_each_job_once


class CountingLoader:
    """Hydra's ConfigLoader as far as a sweep uses it: one composition per call, counted."""

    def __init__(self) -> None:
        self.composed: list[tuple[str, ...]] = []

    def load_sweep_config(self, master_config, sweep_overrides):
        self.composed.append(tuple(sweep_overrides))
        return OmegaConf.create({"job": list(sweep_overrides), "hydra": {"job": {"num": 0}}})


def master(*hydra_overrides: str):
    return OmegaConf.create(
        {"hydra": {"overrides": {"hydra": list(hydra_overrides)}, "job": {"config_name": "config"}}}
    )


def test_each_job_is_composed_once_however_often_and_by_whom_it_is_asked():
    loader = CountingLoader()
    compose_each_job_once(loader)
    compose_each_job_once(loader)  # a second caller (the plan) installs nothing more
    sweep = master("hydra.mode=MULTIRUN")
    for _ in range(4):  # sweeper, plan, batch check, launcher; equal configs, new objects
        for job in (["model=mlp"], ["model=cnn"]):
            assert list(loader.load_sweep_config(OmegaConf.create(sweep), job).job) == job
    assert loader.composed == [("model=mlp",), ("model=cnn",)]


def test_every_caller_gets_its_own_copy_to_write_into():
    loader = CountingLoader()
    compose_each_job_once(loader)
    first = loader.load_sweep_config(master(), ["model=mlp"])
    first.hydra.job.num = 7  # what Hydra's launcher does to the config it runs
    assert loader.load_sweep_config(master(), ["model=mlp"]).hydra.job.num == 0


def test_a_sweep_with_other_hydra_overrides_composes_again():
    loader = CountingLoader()
    compose_each_job_once(loader)
    loader.load_sweep_config(master("hydra.sweep.dir=a"), ["model=mlp"])
    loader.load_sweep_config(master("hydra.sweep.dir=b"), ["model=mlp"])
    assert len(loader.composed) == 2
