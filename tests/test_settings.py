"""Software settings: refused when impossible, applied before they must be, verified in effect."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from frameworks import allocator, settings
from twinbench.config.spec import ConfigError, build_spec

from .conftest import read_result, run_cli

# measure.warmup_steps=1: 3 steps leave 2 steady ones (the default warm-up of 10 leaves none)
SHORT = ("cpus=1", "epochs=1", "max_steps=3", "measure.peak_probe=false", "measure.warmup_steps=1")


@pytest.mark.parametrize(
    ("overrides", "message"),
    [
        (["backend=tensorflow", "backend.flush_denormal=false"], "cannot be honoured"),
        (["backend=torch", "+backend.jit=true"], "backend torch has no setting 'jit'"),
        (["backend=torch", "backend.compile=1"], "backend.compile must be one of"),
        (["backend=torch", "backend.fused_optimizer=true"], "torch has no fused rmsprop"),
        (["backend=tensorflow", "backend.steps_per_execution=0"], "whole number >= 1"),
        (["backend=keras_jax", "backend.jit_compile=1"], "backend.jit_compile must be one of"),
        (["backend=keras_torch", "+backend.xla=true"], "backend keras_torch has no setting"),
        (["backend=keras_jax", "profile=true"], "keras_jax has no per-layer profiler"),
    ],
)
def test_settings_a_framework_cannot_honour_are_refused(compose, overrides, message):
    with pytest.raises(ConfigError, match=message):
        build_spec(compose(*overrides))


def test_refusal_is_one_line_before_anything_runs(tmp_path):
    proc = run_cli(
        "backend=tensorflow", "backend.flush_denormal=false", f"hydra.run.dir={tmp_path}"
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().splitlines() == [
        "twinbench: error: backend.flush_denormal=False cannot be honoured: TensorFlow flushes "
        "denormals in every op; it cannot be turned off"
    ]
    assert not (tmp_path / "worker.log").exists()


def test_default_preset_is_each_frameworks_out_of_the_box_behaviour(compose):
    torch_cfg = compose("backend=torch")["backend"]
    tf_cfg = compose("backend=tensorflow")["backend"]
    assert settings.settings_of(torch_cfg) == {
        "compile": False,
        "compile_mode": "default",
        "mkldnn": True,
        "flush_denormal": False,
        "fused_optimizer": False,
        "tf32": None,  # torch's own TF32 switches, left as they are (a GPU only)
        "allocator": "default",  # glibc's malloc as it comes
    }
    assert settings.settings_of(tf_cfg) == {
        "onednn": None,
        "xla": None,
        "steps_per_execution": 1,
        "flush_denormal": True,
        "allocator": "default",
    }
    # Only Keras' runtime choice: oneDNN unset, TensorFlow decides.
    assert settings.environment(tf_cfg) == {"KERAS_BACKEND": "tensorflow"}


def test_tuned_preset_and_single_overrides_compose(compose):
    tuned = compose("opt=tuned", "backend=torch")["backend"]
    assert tuned["fused_optimizer"] == "auto" and tuned["compile"] is False
    one = compose("backend=tensorflow", "backend.onednn=false")["backend"]
    assert settings.environment(one) == {
        "KERAS_BACKEND": "tensorflow",
        "TF_ENABLE_ONEDNN_OPTS": "0",
    }
    for option in ("default", "tuned"):
        for backend in ("torch", "tensorflow"):
            build_spec(compose(f"opt={option}", f"backend={backend}", "model=fasttext"))


def test_torch_settings_are_applied_and_read_back(tmp_path):
    proc = run_cli(
        "backend=torch",
        *SHORT,
        "backend.compile=true",
        "backend.mkldnn=false",
        "backend.flush_denormal=true",
        "backend.allocator=retain",
        f"hydra.run.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    r = read_result(tmp_path)
    s = r["settings"]
    assert s["compile"] is True and s["compiled_graphs"] >= 1  # Dynamo really compiled
    assert s["mkldnn"] is False and s["flush_denormal"] is True
    # glibc started with the mode's variables (the worker's spawn, not its own os.environ), kept
    # a large block in its heap (mapped under the default: test_default_settings_are_recorded_
    # as_in_effect) and, for a model this small, holds no mapped block after training.
    assert s["allocator"]["mode"] == "retain"
    assert s["allocator"]["variables"] == allocator.VARIABLES["retain"]
    assert s["allocator"]["large_block_mapped"] is False and s["allocator"]["mapped_blocks"] == 0
    # Compilation happens in the first step: reported as start-up, not steady state.
    assert r["startup"]["first_step_s"] > 10 * r["timing"]["steady_step_s"]["median"]


def test_tensorflow_settings_are_applied_and_read_back(tmp_path):
    proc = run_cli(
        "backend=tensorflow",
        *SHORT[:2],
        "max_steps=12",
        "measure.peak_probe=false",
        "measure.warmup_steps=3",
        "backend.onednn=false",
        "backend.xla=true",
        "backend.steps_per_execution=3",
        f"hydra.run.dir={tmp_path}",
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    r = read_result(tmp_path)
    assert r["thread_env"]["TF_ENABLE_ONEDNN_OPTS"] == "0"  # set before TensorFlow loaded
    assert r["settings"] == {
        "onednn": False,  # TensorFlow's own report (IsMklEnabled)
        "xla": True,  # the compiled Keras model's jit_compile
        "steps_per_execution": 3,
        "flush_denormal": True,
        "allocator": r["settings"]["allocator"],  # its own test: test_allocator.py
        # the dtypes read back from the built model (frameworks/precision_check.py)
        "precision": {
            "precision": "float32",
            "compute_dtype": "float32",
            "variable_dtype": "float32",
        },
    }
    # Keras calls the batch hook once per 3 steps; timings are still per step.
    assert r["timing"]["steps_per_tick"] == 3
    assert r["timing"]["steady_steps"] % 3 == 0


def test_default_settings_are_recorded_as_in_effect(tiny_sweep):
    """The mlp records of conftest's tiny sweep, which sets no backend key (until 2026-12-05 this
    test ran its own sweep of the same two defaults: two more framework imports)."""
    _, records = tiny_sweep
    by_backend = {r["backend"]: r["settings"] for r in records if r["model"] == "mlp"}
    assert sorted(by_backend) == ["tensorflow", "torch"]
    assert by_backend["torch"]["compile"] is False and by_backend["torch"]["mkldnn"] is True
    assert by_backend["tensorflow"]["xla"] is False  # Keras' "auto" is off on CPU
    # glibc's malloc as it comes: no variable set, and a large block mapped when asked for
    for backend, found in by_backend.items():
        assert found["allocator"]["mode"] == "default" and found["allocator"]["variables"] == {}
        assert found["allocator"]["large_block_mapped"] is True, backend
    # TensorFlow's own default, read in a process of its own: on x86 it turns oneDNN on only
    # where the CPU has the features it wants (AVX-512 VNNI/BF16, AMX), so off on an AVX2 CPU.
    assert by_backend["tensorflow"]["onednn"] is tensorflow_onednn_default()


def tensorflow_onednn_default() -> bool:
    code = (
        "from tensorflow.python.util import _pywrap_util_port\n"
        "print(bool(_pywrap_util_port.IsMklEnabled()))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "TF_ENABLE_ONEDNN_OPTS"}
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True
    ).stdout
    return out.strip().splitlines()[-1] == "True"


def test_every_registered_backend_has_a_conf_file_whose_settings_the_registry_allows(compose):
    from frameworks import registry
    from twinbench.config.spec import group_choices

    assert sorted(group_choices("backend")) == sorted(registry.names())
    for name in registry.names():
        cfg = compose(f"backend={name}")["backend"]
        settings.validate(cfg)
        assert set(settings.settings_of(cfg)) == set(registry.spec(name).settings), name
        # Keras reads its runtime once, at import: every Keras backend names its own.
        if registry.spec(name).api == "keras":
            assert settings.environment(cfg)["KERAS_BACKEND"] == registry.spec(name).runtime


def test_xla_pool_size_is_set_before_jax_loads_and_other_backends_set_their_own_in_process():
    assert settings.thread_environment("keras_jax", 2, 2) == {"PJRT_NPROC": "2"}
    one = settings.thread_environment("keras_jax", 1, 1)
    assert one["PJRT_NPROC"] == "1" and "--xla_cpu_multi_thread_eigen=false" in one["XLA_FLAGS"]
    for name in ("torch", "tensorflow", "keras_torch"):
        assert settings.thread_environment(name, 2, 2) == {}


def test_torch_compile_traces_an_lstm_with_allow_rnn_and_leaves_dynamo_as_it_was(monkeypatch):
    """By default Dynamo leaves nn.LSTM to eager and an LSTM model compiles no graph (the bilstm
    cell of the 2026-12-01 matrix); the adapter turns allow_rnn on while it traces, and only
    then. Dynamo's own eager backend stands in for Inductor: the capture is what is tested."""
    import torch
    import torch._dynamo
    from torch._dynamo.utils import counters

    from frameworks.torch_native.compiled import CompiledForward

    real_compile = torch.compile
    monkeypatch.setattr(
        torch, "compile", lambda model, mode=None: real_compile(model, backend="eager")
    )

    class Recurrent(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.lstm = torch.nn.LSTM(4, 3, batch_first=True, bidirectional=True)

        def forward(self, x):
            return self.lstm(x)[0]

    torch._dynamo.reset()
    before = counters["stats"]["unique_graphs"]
    try:
        forward = CompiledForward(Recurrent(), "default")
        assert forward.allow_rnn is None  # nothing traced yet
        out = forward(torch.ones(2, 5, 4))
        assert out.shape == (2, 5, 6)
        assert counters["stats"]["unique_graphs"] > before  # the LSTM was traced into a graph
        assert forward.allow_rnn is True  # what the record's settings read back
        assert torch._dynamo.config.allow_rnn is False  # patched per call, not process-wide
    finally:
        torch._dynamo.reset()


def test_keras_on_torch_flushes_subnormals_as_native_torch_does():
    """backend.flush_denormal on Keras on torch: torch's own switch, set and read back the same
    way (frameworks/torch_native/denormals.py), in a process of Keras on torch's own."""
    code = (
        "from frameworks import registry\n"
        "keras_torch = registry.spec('keras_torch').load()\n"
        "from frameworks.torch_native import denormals\n"
        "for flush in (True, False):\n"
        "    keras_torch.apply_settings({'flush_denormal': flush})\n"
        "    print(denormals.in_effect())\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout
    assert out.split() == ["True", "False"]
