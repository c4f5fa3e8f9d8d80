"""The GPU half without a GPU (issue 42): the clock's device sync, the TF32 policy applied and
read back, and the record's device block, each driven by fakes of torch's CUDA namespaces. The
one test that needs a real GPU skips here."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from frameworks.timing import RunClock, no_sync
from frameworks.torch_native import cuda as torch_cuda
from twinbench.machine import cpu


class FakeDevice:
    """A GPU whose queued work is done only when synchronised: the log shows the order."""

    def __init__(self) -> None:
        self.log: list[str] = []
        self.t = 0

    def synchronize(self) -> None:
        self.log.append("sync")

    def now_ns(self) -> int:
        self.log.append("read")
        self.t += 1000
        return self.t


def test_every_clock_read_synchronises_the_device_first():
    dev = FakeDevice()
    clock = RunClock(now_ns=dev.now_ns, cpu_ns=lambda: 0, sync=dev.synchronize)
    clock.epoch_begin()
    clock.step_end()
    clock.step_end()
    clock.validation_begin()
    clock.epoch_end()
    # Five reads, each straight after a sync: no timestamp taken with kernels still queued.
    assert dev.log == ["sync", "read"] * 5
    assert clock.step_times_ns() == [[1000, 1000]]


def test_the_cpu_clock_has_no_sync_and_torch_picks_the_device_sync():
    fake_cuda = SimpleNamespace(synchronize=lambda: None)
    assert RunClock().sync is no_sync
    assert torch_cuda.device_sync("cpu", fake_cuda) is no_sync
    assert torch_cuda.device_sync("cuda", fake_cuda) is fake_cuda.synchronize


def fake_backends(matmul: bool = False, cudnn: bool = True) -> SimpleNamespace:
    """torch.backends as torch 2.13 starts: matmul TF32 off, cuDNN TF32 on."""
    return SimpleNamespace(
        cuda=SimpleNamespace(matmul=SimpleNamespace(allow_tf32=matmul)),
        cudnn=SimpleNamespace(allow_tf32=cudnn),
    )


@pytest.mark.parametrize(
    ("requested", "expected"),
    [
        (None, {"tf32_matmul": False, "tf32_cudnn": True}),  # torch's defaults, untouched
        (True, {"tf32_matmul": True, "tf32_cudnn": True}),
        (False, {"tf32_matmul": False, "tf32_cudnn": False}),
    ],
)
def test_tf32_policy_is_applied_and_read_back(requested, expected):
    b = fake_backends()
    torch_cuda.apply_tf32(requested, b)
    report = torch_cuda.tf32_in_effect(b)
    assert report == expected
    assert torch_cuda.check_tf32(requested, report) is None


def test_tf32_read_back_otherwise_is_named():
    # A library that turned cuDNN's TF32 back on after the policy asked for none.
    report = torch_cuda.tf32_in_effect(fake_backends(matmul=False, cudnn=True))
    assert torch_cuda.check_tf32(False, report) == (
        "backend.tf32=False requested, tf32_cudnn read back otherwise"
    )


def test_tf32_is_a_setting_of_the_torch_runtimes_only():
    from frameworks import registry, settings

    for name in ("torch", "keras_torch"):
        assert "tf32" in registry.spec(name).settings
        settings.validate({"name": name, "tf32": True})
    for name in ("tensorflow", "keras_jax"):
        with pytest.raises(settings.SettingError, match="has no setting 'tf32'"):
            settings.validate({"name": name, "tf32": True})


class FakeCuda:
    def __init__(self) -> None:
        self.resets = 0

    def reset_peak_memory_stats(self) -> None:
        self.resets += 1

    def current_device(self) -> int:
        return 0

    def get_device_name(self, i: int) -> str:
        return "NVIDIA Fake 80GB"

    def get_device_capability(self, i: int) -> tuple[int, int]:
        return (9, 0)

    def get_device_properties(self, i: int) -> SimpleNamespace:
        return SimpleNamespace(total_memory=80 * 2**30)

    def max_memory_allocated(self, i: int) -> int:
        return 3 * 2**29  # 1.5 GiB

    def max_memory_reserved(self, i: int) -> int:
        return 2**31


def test_the_device_block_of_a_cuda_run():
    cuda = FakeCuda()
    torch_cuda.reset_peak("cpu", cuda)
    assert cuda.resets == 0
    torch_cuda.reset_peak("cuda", cuda)
    assert cuda.resets == 1
    block = torch_cuda.device_block(
        "cuda",
        cuda=cuda,
        versions=SimpleNamespace(cuda="12.8"),
        cudnn=SimpleNamespace(is_available=lambda: True, version=lambda: 91002),
        driver=lambda: "570.1",
    )
    assert block == {
        "name": "NVIDIA Fake 80GB",
        "index": 0,
        "capability": "9.0",
        "memory_total_mib": 80 * 1024,
        "driver": "570.1",
        "cuda_runtime": "12.8",
        "cudnn": 91002,
        "memory_peak_mib": 1536,
        "memory_reserved_peak_mib": 2048,
    }
    assert torch_cuda.device_block("cpu", cuda=cuda) is None


def test_driver_version_from_nvidia_smi_or_none():
    said = SimpleNamespace(returncode=0, stdout="570.86.15\n")
    assert torch_cuda.driver_version(lambda *a, **k: said) == "570.86.15"

    def missing(*a, **k):
        raise FileNotFoundError("nvidia-smi")

    assert torch_cuda.driver_version(missing) is None
    failed = SimpleNamespace(returncode=9, stdout="")
    assert torch_cuda.driver_version(lambda *a, **k: failed) is None


def test_the_record_carries_the_device_block_through_json():
    import json

    from tests.conftest import REPO_ROOT
    from twinbench.result.record import ResultRecord

    data = json.loads((REPO_ROOT / "tests/records/schema2-torch-mlp.json").read_text())
    block = {"name": "NVIDIA Fake 80GB", "driver": "570.1", "memory_peak_mib": 1536.0}
    data.update(device="cuda", device_info=block)
    record = ResultRecord.from_json(data)
    assert record.device_info == block  # a typed field of the schema, not an unknown extra
    assert record.to_json()["device_info"] == block


def test_the_real_device_block_on_a_gpu():
    import torch

    if not torch.cuda.is_available():
        pytest.skip("no CUDA device here: the GPU half runs in benchmarks/gpu_matrix.py")
    torch_cuda.reset_peak("cuda")
    x = torch.ones(1024, 1024, device="cuda")
    (x @ x).sum().item()
    block = torch_cuda.device_block("cuda")
    assert block["memory_peak_mib"] >= 4 and block["cuda_runtime"] == torch.version.cuda


def test_keras_on_torch_is_told_its_device_before_import():
    from frameworks import settings

    # Without it Keras on torch computes on CUDA whenever torch sees a GPU, device=cpu or not.
    assert settings.device_environment("keras_torch", "cpu") == {"KERAS_TORCH_DEVICE": "cpu"}
    assert settings.device_environment("keras_torch", "cuda") == {"KERAS_TORCH_DEVICE": "cuda"}
    assert settings.device_environment("torch", "cuda") == {}


def test_the_worker_sets_the_device_variable_with_the_budget(compose):
    from twinbench.config.spec import build_spec
    from twinbench.worker import pinning

    env = pinning.budget_environment(build_spec(compose("backend=keras_torch")))
    assert env["KERAS_TORCH_DEVICE"] == "cpu" and env["KERAS_BACKEND"] == "torch"


def test_keras_on_torch_hands_the_clock_torchs_sync_on_a_gpu():
    import torch

    from frameworks.keras.on_torch import KerasTorchBackend

    assert KerasTorchBackend.clock_sync(None, "cuda") is torch.cuda.synchronize
    assert KerasTorchBackend.clock_sync(None, "cpu") is no_sync


class FakeGpuBackend:
    """An adapter whose 'GPU' logs when its memory peak is reset and its block read."""

    def __init__(self) -> None:
        self.log: list[str] = []

    def build(self, model_name, model_cfg, device):
        return object()

    def count_params(self, model) -> int:
        return 1

    def device_begin(self, device: str) -> None:
        self.log.append(f"reset {device}")

    def train(self, model, model_cfg, data, plan, clock, progress=None):
        self.log.append("train")
        clock.epoch_begin()
        clock.step_end()
        clock.epoch_end()

    def device_report(self, device: str):
        self.log.append(f"report {device}")
        return {"name": "NVIDIA Fake", "memory_peak_mib": 1.0}

    def settings_report(self):
        return {}


def test_the_train_phase_resets_the_peak_before_training_and_reads_the_block_after(
    compose, monkeypatch, tmp_path
):
    from types import SimpleNamespace

    import numpy as np

    from twinbench.config.spec import build_spec
    from twinbench.worker import phases

    monkeypatch.setattr(cpu, "gpu_visible", lambda: True)
    spec = build_spec(compose("device=cuda", "epochs=1", "max_steps=1"))
    backend = FakeGpuBackend()
    fw = phases.Framework(backend, None, 0.0, None)
    data = SimpleNamespace(x_train=np.zeros((256, 784)), x_test=np.zeros((128, 784)))
    loaded = phases.Loaded(data, spec.model_cfg, 0.0)
    trained = phases.train(spec, "test", fw, loaded, tmp_path)
    assert backend.log == ["reset cuda", "train", "report cuda"]
    assert trained.device_info == {"name": "NVIDIA Fake", "memory_peak_mib": 1.0}


def test_the_cublas_gemm_peaks_on_a_gpu():
    import torch

    if not torch.cuda.is_available():
        pytest.skip("no CUDA device here: the GEMM peaks are timed by benchmarks/gpu_matrix.py")
    rates = torch_cuda.gemm_rates(1024, 0.2)
    assert set(rates) == {"float32", "tf32", "bfloat16"} and min(rates.values()) > 0


def test_keras_on_torch_training_sets_the_clock_sync_before_fit(monkeypatch):
    from frameworks.keras import common
    from frameworks.keras.on_torch import KerasTorchBackend

    seen = {}
    monkeypatch.setattr(
        common.KerasBackend, "train", lambda self, *a, **k: seen.setdefault("sync", a[4].sync)
    )
    backend = KerasTorchBackend.__new__(KerasTorchBackend)  # no Keras session needed
    monkeypatch.setattr(KerasTorchBackend, "clock_sync", lambda self, device: f"sync of {device}")
    clock = RunClock()
    backend.train(None, {}, None, SimpleNamespace(device="cuda"), clock)
    assert seen["sync"] == "sync of cuda"


def test_the_tf32_key_at_its_default_keeps_older_records_run_keys(compose):
    import copy

    from twinbench.result import results

    now = compose("backend=keras_torch")
    before = copy.deepcopy(now)  # a config written before backend.tf32 existed
    del before["backend"]["tf32"]
    for name in ("torch", "keras_torch"):
        del before["opt"][name]["tf32"]
    assert results.run_key(now) == results.run_key(before)
    assert now["backend"]["tf32"] is None  # the caller's config is left as it was
    asked = compose("backend=keras_torch", "backend.tf32=true")
    assert results.run_key(asked) != results.run_key(before)


def test_the_analysis_reads_tf32_at_its_default_as_no_setting():
    from analysis.load.records import settings_of

    old = {"config": {"backend": {"name": "torch", "compile": False}}}
    new = {"config": {"backend": {"name": "torch", "compile": False, "tf32": None}}}
    asked = {"config": {"backend": {"name": "torch", "compile": False, "tf32": True}}}
    assert settings_of(new) == settings_of(old) == {"compile": False}
    assert settings_of(asked) == {"compile": False, "tf32": True}
