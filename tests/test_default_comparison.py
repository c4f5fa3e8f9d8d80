"""README command 1 (`run.py +experiment=compare`) answers both halves of the question."""

from __future__ import annotations

from omegaconf import OmegaConf

from twinbench.cli.sweep_end import sweep_size
from twinbench.paths import CONF_DIR


def test_the_default_comparison_sweeps_both_frameworks_at_one_and_all_cores_and_certifies():
    exp = OmegaConf.load(CONF_DIR / "experiment" / "compare.yaml")
    assert exp.hydra.mode == "MULTIRUN"
    params = dict(exp.hydra.sweeper.params)
    assert params == {"backend": "torch,tensorflow", "cpus": "1,null"}  # null: every core
    assert sweep_size([], params) == 4
    assert exp.certify is True


def test_the_default_comparison_decides_pair_by_pair_within_its_budget():
    from twinbench.sequential import Design, half_widths, load_design

    exp = OmegaConf.load(CONF_DIR / "experiment" / "compare.yaml")
    assert exp.hydra.sweeper.decide is True
    design = load_design(**exp.hydra.sweeper.decision)
    # Both core counts in about 6 minutes: one budget they share, or one each of at most 3 min.
    assert isinstance(design, Design)
    if design.total_seconds is not None:
        assert design.total_seconds <= 360
    else:
        assert design.max_seconds is not None and design.max_seconds <= 180
    # Capped runs: a run is mostly start-up, so a budget of ~6 min holds ~12 pairs, not ~3.
    assert exp.max_steps is not None and exp.max_steps <= 200
    # Enough pairs for the confidence sequence to become finite (it is the whole line up to 4).
    import numpy as np

    n = np.arange(1, exp.repeats + 1, dtype=float)
    finite = np.isfinite(half_widths(n, np.ones_like(n), design.alpha, design.prior_precision))
    assert finite.any() and exp.repeats >= 6


def test_the_experiment_composes_with_the_rest_of_conf(compose):
    cfg = compose("+experiment=compare", "model=cnn")
    assert cfg["certify"] is True and cfg["epochs"] == 2 and cfg["model"]["name"] == "cnn"


def test_its_settings_stay_out_of_the_run_identity_and_the_job_dirs():
    from twinbench.result import results

    assert {"certify", "quiet", "verbose"} <= set(results.NOT_MEASURED)
    excluded = OmegaConf.load(CONF_DIR / "config.yaml").hydra.job.config.override_dirname
    assert {"certify", "quiet", "verbose", "experiment"} <= set(excluded.exclude_keys)


def test_no_path_valued_setting_names_a_job_folder():
    # A '/' in a job's directory name nests its folder: measure.peak_cache_dir=/tmp/x put a
    # sweep's runs in .../peak_cache_dir=/tmp/x/repeat-N, and each pair's halves, whose pair ids
    # hash the folder above the run's, no longer shared one (2026-12-06).
    conf = OmegaConf.load(CONF_DIR / "config.yaml")
    excluded = set(conf.hydra.job.config.override_dirname.exclude_keys)
    paths = {
        f"{section}.{key}"
        for section in ("measure", "stacks")
        for key in conf[section]
        if key.endswith(("_dir", "_file"))
    }
    assert paths and paths <= excluded, sorted(paths - excluded)
