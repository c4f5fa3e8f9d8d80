"""Configuration: every group composes, defaults follow the machine, bad input is refused."""

from __future__ import annotations

import pytest

from twinbench.config.spec import ConfigError, build_spec, group_choices
from twinbench.machine import cpu

from .conftest import CORES


@pytest.mark.parametrize("group", ["backend", "model", "data"])
def test_every_option_of_every_group_composes(compose, group):
    for option in group_choices(group):
        cfg = compose(f"{group}={option}")
        assert cfg[group]["name" if group != "data" else "source"]


def test_defaults_use_every_allowed_core_and_one_thread_per_core(compose):
    spec = build_spec(compose())
    assert spec.cpus == CORES
    assert spec.cores == cpu.allowed_cpus()
    assert spec.threads == spec.interop_threads == CORES
    assert spec.epochs == 20 and spec.batch_size == 128  # the MLP's own values


def test_explicit_budget_and_epochs_override_the_defaults(compose):
    spec = build_spec(compose("cpus=1", "threads=3", "interop_threads=2", "epochs=2"))
    assert (spec.cpus, spec.threads, spec.interop_threads, spec.epochs) == (1, 3, 2, 2)
    assert spec.cores == cpu.allowed_cpus()[:1]


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        ([f"cpus={CORES + 1}"], f"may use only {CORES} cores"),
        (["cpus=0"], "cpus must be at least 1"),
        (["threads=0"], "threads must be at least 1"),
        (["interop_threads=-2"], "interop_threads must be at least 1"),
        (["epochs=0"], "epochs must be at least 1"),
        (["device=tpu"], "unknown device 'tpu'; choose one of: cpu, cuda"),
        (["measure.peak_probe_min_share=90"], "must be a number above 0 and at most 1, got 90"),
        # `hydra.sweeper.params.cpus=null` reaches each job as the text 'None'
        (["cpus=None"], "how a sweep parameter given as null reaches a job: write cpus=null"),
        # refused only inside the worker, after its framework had loaded (2026-12-06)
        (
            ["model.optimizer.name=sgd"],
            "unknown model.optimizer.name 'sgd'; choose one of: adadelta, adam, adamw, rmsprop",
        ),
        (
            ["model.optimizer.name=adam"],  # mlp's RMSprop has rho, not Adam's betas: KeyError
            "model.optimizer.name=adam reads lr, beta_1, beta_2, eps; this model's optimizer has "
            "no beta_1, beta_2: give them values in its conf/model/ yaml",
        ),
    ],
)
def test_impossible_values_are_refused_with_a_message_that_says_what_to_do(
    compose, overrides, message
):
    with pytest.raises(ConfigError, match=message):
        build_spec(compose(*overrides))


def test_cuda_without_a_gpu_is_refused(compose, monkeypatch):
    monkeypatch.setattr(cpu, "gpu_visible", lambda: False)
    with pytest.raises(ConfigError, match="no NVIDIA GPU is visible"):
        build_spec(compose("device=cuda"))


@pytest.mark.parametrize(
    ("backend", "framework"), [("tensorflow", "TensorFlow"), ("keras_jax", "JAX")]
)
def test_cuda_on_a_backend_whose_gpu_build_cannot_travel_is_refused_even_with_a_gpu(
    compose, monkeypatch, backend, framework
):
    # A GPU is "visible", so only the backend's own refusal can stop it.
    monkeypatch.setattr(cpu, "gpu_visible", lambda: True)
    with pytest.raises(ConfigError) as caught:
        build_spec(compose(f"backend={backend}", "device=cuda"))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"device=cuda with backend={backend}: {framework}'s GPU build")
    assert "backend=torch or keras_torch" in message


@pytest.mark.parametrize("backend", ["torch", "keras_torch"])
def test_cuda_on_torch_backends_passes_the_device_check_where_a_gpu_is_visible(
    compose, monkeypatch, backend
):
    monkeypatch.setattr(cpu, "gpu_visible", lambda: True)
    assert build_spec(compose(f"backend={backend}", "device=cuda")).device == "cuda"


def test_unknown_model_in_a_composed_config_lists_the_choices(compose):
    cfg = compose()
    cfg["model"] = {**cfg["model"], "name": "resnet"}
    with pytest.raises(ConfigError, match=r"unknown model 'resnet'; choose one of: .*mlp"):
        build_spec(cfg)


def test_a_sweep_is_checked_with_one_composition_a_job_unless_its_overrides_need_defaults(
    monkeypatch,
):
    # Every job was composed twice from conf/ (its groups' defaults, then itself) before a
    # sweep started: 0.2 s each, forty times for the ten workloads of four backends. A job
    # whose overrides change no model or optimizer value and add no key is its own defaults.
    from twinbench.config import checks

    composed = []
    real = checks._compose
    monkeypatch.setattr(checks, "_compose", lambda o: composed.append(list(o)) or real(o))
    checks.validate_overrides(["-m", "backend=torch", "model=mlp,cnn", "cpus=1", "epochs=1"])
    assert len(composed) == 2
    composed.clear()
    # a model value's kind is fixed by its default: the defaults are composed for it
    checks.validate_overrides(["model=mlp", "model.batch_size=64"])
    assert composed == [["model=mlp"], ["model=mlp", "model.batch_size=64"]]
    with pytest.raises(ConfigError, match=r"model\.batch_size must be a whole number"):
        checks.validate_overrides(["model=mlp", "model.batch_size=abc"])
