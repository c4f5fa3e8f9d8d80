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


def test_a_repeat_of_a_job_is_the_jobs_composition_with_its_slot_set_as_hydra_sets_it():
    # The interleaving sweeper appends `repeat_slot=r` to every repeat of a job; Hydra's loader
    # composed each such job from conf/ again. On conf/ itself: the shortcut gives the very
    # config Hydra's own composition gives (key, task overrides, directory name, flags).
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode

    from twinbench.paths import REPO_ROOT

    job = ["backend=torch", "model=cnn", "cpus=1", "repeat_slot=2"]
    with initialize_config_dir(str(REPO_ROOT / "conf"), version_base="1.3"):
        loader = GlobalHydra.instance().config_loader()
        sweep = loader.load_configuration("config", ["hydra.sweep.dir=/x"], RunMode.MULTIRUN)
        hydras_own = loader.load_sweep_config(sweep, list(job))
        from_conf, hydras = [], loader.load_sweep_config
        loader.load_sweep_config = lambda m, o: from_conf.append(tuple(o)) or hydras(m, o)
        compose_each_job_once(loader)
        loader.load_sweep_config(sweep, job[:-1])  # the sweeper reads the job's repeats first
        ours = loader.load_sweep_config(sweep, list(job))
    assert OmegaConf.to_container(ours) == OmegaConf.to_container(hydras_own)
    assert ours.repeat_slot == 2 and ours.hydra.overrides.task[-1] == "repeat_slot=2"
    assert OmegaConf.is_struct(ours)
    assert from_conf == [tuple(job[:-1])]  # the repeat came from the job's composition


def test_a_slot_is_composed_in_full_where_run_directory_names_would_hold_it():
    loader = CountingLoader()
    compose_each_job_once(loader)
    loader.load_sweep_config(master(), ["model=mlp"])
    loader.load_sweep_config(master(), ["model=mlp", "repeat_slot=1"])
    # CountingLoader's configs name no excluded keys: the directory name would change
    assert loader.composed == [("model=mlp",), ("model=mlp", "repeat_slot=1")]


def test_every_job_lands_in_the_sweeps_one_folder_however_early_it_was_composed():
    # The plan composes the jobs before the sweep names its folder (${now:} in
    # hydra.sweep.dir, resolved once in the master config); the launcher's copies of those
    # compositions resolved ${now:} again, each at its own second: README command 1 scattered
    # its runs over a folder per job (2026-12-06).
    import time

    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.types import RunMode

    from twinbench.paths import REPO_ROOT

    job = ["backend=torch", "model=cnn", "cpus=1"]
    with initialize_config_dir(str(REPO_ROOT / "conf"), version_base="1.3"):
        loader = GlobalHydra.instance().config_loader()
        sweep = loader.load_configuration("config", [], RunMode.MULTIRUN)
        compose_each_job_once(loader)
        loader.load_sweep_config(sweep, list(job))  # the plan, before the folder is named
        folder = sweep.hydra.sweep.dir  # the sweep names it: ${now:} resolved and cached
        time.sleep(1.1)  # a job launched a second later
        for overrides in (job, [*job, "repeat_slot=1"]):
            assert loader.load_sweep_config(sweep, list(overrides)).hydra.sweep.dir == folder
