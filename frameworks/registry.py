"""Every backend twinbench can run, by name: the one place a new framework is added.

A backend is a model API on a runtime. `torch` is torch's own API on torch's runtime;
`tensorflow`, `keras_torch` and `keras_jax` are Keras 3 on TensorFlow, torch and JAX. Keeping the
two apart lets the report split a framework gap into the API's cost (same runtime, different API)
and the runtime's (same API, different runtime).

Each entry holds every fact about its backend that code outside the adapter needs: its software
settings and their allowed values, the variables that must be set before its framework loads
(fixed ones, those a setting selects, and its thread variables), the packages whose versions a
record or parity certificate lists, and the adapter class.

Importing this module never loads a framework: the worker imports exactly one adapter, after
pinning CPUs and setting the variables the entry names.
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.machinery
import os
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from frameworks import allocator

# setting -> (allowed values, what it does); allowed None: any whole number >= 1 or null.
# null means "the framework's own default".
Settings = dict[str, tuple[tuple | None, str]]


def no_thread_variables(threads: int, interop_threads: int) -> dict[str, str]:
    """Backends whose framework sets and reads back its pools in configure_threads."""
    return {}


def xla_thread_variables(threads: int, interop_threads: int) -> dict[str, str]:
    """XLA on CPU has no API for its thread count: its PJRT client sizes the intra-op (Eigen)
    pool from PJRT_NPROC, read when the client starts, else from the schedulable cores. One
    thread also turns off Eigen's multi-threaded kernels. frameworks/keras/on_jax.py counts the
    pool's threads after the first computation."""
    env = {"PJRT_NPROC": str(threads)}
    if threads == 1:
        env["XLA_FLAGS"] = "--xla_cpu_multi_thread_eigen=false"
    return env


def no_compile_check() -> str | None:
    """A runtime whose compiler ships inside its wheel (XLA in TensorFlow and jaxlib)."""
    return None


def inductor_compile_check() -> str | None:
    """torch.compile's Inductor writes C++ for the CPU and builds it with the system compiler:
    without one, compiled runs fail mid-training, so the parent refuses them first."""
    import shutil

    compilers = (os.environ.get("CXX"), "c++", "g++", "clang++")
    if any(c and shutil.which(c) for c in compilers):
        return None
    return "torch.compile (Inductor) needs a C++ compiler on PATH (c++, g++ or clang++; or CXX)"


def no_combination_check(
    backend_cfg: dict[str, Any],
    model_cfg: dict[str, Any],
    precision: str,
    device: str,
    bf16_units: Sequence[str],
) -> str | None:
    """A backend whose every model runs in every precision its settings allow."""
    return None


def torch_combination_check(
    backend_cfg: dict[str, Any],
    model_cfg: dict[str, Any],
    precision: str,
    device: str,
    bf16_units: Sequence[str],
) -> str | None:
    """torch's CPU LSTM (nn.LSTM) runs in oneDNN while torch.backends.mkldnn is on, and oneDNN
    has no bfloat16 LSTM on a CPU without bfloat16 units: under autocast the first forward pass
    fails ("could not create a primitive descriptor for the LSTM forward propagation
    primitive"). ATen's own LSTM, with mkldnn off, runs it. Recurrent models are those whose
    arch names a recurrent_activation (bilstm, charlstm, textgen). `bf16_units`: the CPU's
    bfloat16 flags (twinbench.config.precision.bf16_units; empty: none)."""
    if precision != "bfloat16" or device != "cpu" or backend_cfg.get("mkldnn") is False:
        return None
    if "recurrent_activation" not in (model_cfg.get("arch") or {}) or bf16_units:
        return None
    return (
        f"precision=bfloat16 with the recurrent model {model_cfg.get('name')} fails in oneDNN's "
        "LSTM on a CPU without bfloat16 units (this one has none); add backend.mkldnn=false to "
        "run ATen's own LSTM instead"
    )


@dataclass(frozen=True)
class BackendSpec:
    name: str  # the conf/backend/<name>.yaml file and the `backend=` value
    api: str  # the model API the user writes: "keras" or a framework's own ("torch")
    runtime: str  # the engine that executes it: "tensorflow", "torch", "jax"
    adapter: str  # "module:Class", a frameworks.base.Backend, imported lazily
    label: str  # how reports name it
    settings: Settings = field(default_factory=dict)
    # Set before the framework loads, whatever the run's settings (Keras' runtime choice).
    environment: dict[str, str] = field(default_factory=dict)
    # setting -> variable its true/false turns into before import ("1"/"0"); null sets nothing.
    setting_variables: dict[str, str] = field(default_factory=dict)
    thread_variables: Callable[[int, int], dict[str, str]] = no_thread_variables
    packages: tuple[str, ...] = ()  # distributions whose versions records and certificates list
    profiler: str | None = None  # the per-layer profiler of frameworks/profiling.py, if any
    # Source files (repository paths) that turn a model config into this backend's training
    # math: a parity certificate hashes them, so a change makes it stale.
    certified_code: tuple[str, ...] = ()
    # exec=eager|compiled (conf/config.yaml) -> the settings each mode sets; the finer switches
    # stay settable on their own when exec is null.
    exec_modes: dict[str, dict[str, Any]] = field(default_factory=dict)
    # None where exec=compiled can run here, else why not (checked in the parent, no import).
    compile_check: Callable[[], str | None] = no_compile_check
    # None where this backend can train the model in this precision with these settings on this
    # CPU, else why not and what to do instead (checked in the parent, no import).
    combination_check: Callable[..., str | None] = no_combination_check
    # None where device=cuda can run; else why not, said before any data or framework import.
    cuda_refusal: str | None = None
    # The variable naming the run's device ("cpu"/"cuda") before the framework loads, for a
    # runtime that otherwise picks a visible GPU by itself.
    device_variable: str | None = None
    # Its runtime hands a step's large buffers back to malloc and asks for them again the next
    # step (torch's autograd, gradients set to None), so under glibc's defaults their pages are
    # faulted in every step: torch's MLP step 1.09x, fastText 1.53x, Keras on torch's fastText
    # 2.0x slower than with backend.allocator=retain, where TensorFlow's MLP and fastText were
    # equivalent (docs/findings/2026-12-07-allocator-page-faults.md). The page-fault flag
    # (frameworks/allocator.py) is raised for these backends only.
    faults_step_buffers: bool = False

    def load(self) -> Any:
        """The adapter instance; this is where the framework import happens. The entry's fixed
        variables are set first (a worker has set them already; a parity stage has not)."""
        os.environ.update(self.environment)
        module_name, cls = self.adapter.split(":")
        return getattr(importlib.import_module(module_name), cls)()


# TF32 on torch's runtime (frameworks/torch_native/cuda.py); the CPU has no TF32 units, so it
# changes nothing there, and it is read back in every torch-runtime record.
TF32_SETTING: Settings = {
    "tf32": (
        (None, True, False),
        "TF32 on a GPU: torch.backends.cuda.matmul.allow_tf32 and cudnn.allow_tf32 together; "
        "null = torch's defaults (matmul off, cuDNN on), which Keras on torch inherits",
    ),
}

# Subnormal floats on torch's runtime, computed or flushed (frameworks/torch_native/denormals.py).
FLUSH_SETTING: Settings = {"flush_denormal": ((False, True), "torch.set_flush_denormal")}

# Every backend's: the C allocator its worker starts under (frameworks/allocator.py).
ALLOCATOR_SETTING: Settings = {"allocator": (allocator.MODES, allocator.MEANING)}

KERAS_SETTINGS: Settings = {
    "jit_compile": (
        (None, True, False),
        "compile(jit_compile=...); null = Keras' 'auto' (off on torch, XLA on JAX)",
    ),
    "steps_per_execution": (None, "compile(steps_per_execution=N): N steps per compiled call"),
}

# Keras on JAX and on torch: compile(jit_compile=...) is XLA on JAX and torch.compile on torch.
KERAS_EXEC_MODES = {"eager": {"jit_compile": False}, "compiled": {"jit_compile": True}}

KERAS_CODE = (
    "frameworks/keras/optimizers.py",
    "frameworks/keras/common.py",
    "models/keras_transformer.py",
)

# The device machine's image has CUDA PyTorch only, and a GPU build of TensorFlow or jaxlib (with
# its CUDA libraries, gigabytes) cannot be carried to it: those backends run on the CPU alone.
NO_GPU_BUILD = (
    "{framework}'s GPU build cannot travel to the device machine (its image has CUDA PyTorch "
    "only); device=cuda runs backend=torch or keras_torch"
)

BACKENDS: dict[str, BackendSpec] = {
    spec.name: spec
    for spec in (
        BackendSpec(
            name="torch",
            api="torch",
            runtime="torch",
            adapter="frameworks.torch_native.backend:TorchBackend",
            label="PyTorch",
            settings={
                "compile": ((False, True), "torch.compile the model for training (Inductor)"),
                "compile_mode": (
                    ("default", "reduce-overhead", "max-autotune"),
                    "torch.compile mode",
                ),
                "mkldnn": ((True, False), "torch.backends.mkldnn.enabled: oneDNN kernels"),
                **FLUSH_SETTING,
                "fused_optimizer": (
                    (False, True, "auto"),
                    "torch's fused optimizer kernel (Adam); 'auto': where torch has one",
                ),
                **TF32_SETTING,
                **ALLOCATOR_SETTING,
            },
            packages=("torch",),
            faults_step_buffers=True,
            profiler="torch.profiler",
            exec_modes={"eager": {"compile": False}, "compiled": {"compile": True}},
            compile_check=inductor_compile_check,
            combination_check=torch_combination_check,
            certified_code=(
                "frameworks/torch_native/optimizers.py",
                "frameworks/torch_native/weight_layout.py",
                "models/torch_layers.py",
                "models/torch_init.py",
                "frameworks/torch_native/stochastic.py",  # parity's dropout/augment probes
                "models/torch_transformer.py",
            ),
        ),
        BackendSpec(
            name="tensorflow",
            api="keras",
            runtime="tensorflow",
            adapter="frameworks.keras.on_tensorflow:TensorFlowBackend",
            label="Keras on TensorFlow",
            settings={
                "onednn": (
                    (None, True, False),
                    "TF_ENABLE_ONEDNN_OPTS before import (default on, x86)",
                ),
                "xla": (
                    (None, True, False),
                    "compile(jit_compile=...); null = Keras' 'auto' (off on CPU)",
                ),
                "steps_per_execution": (
                    None,
                    "compile(steps_per_execution=N): N steps per graph call",
                ),
                "flush_denormal": (
                    (True,),
                    "TensorFlow flushes denormals in every op; it cannot be turned off",
                ),
                **ALLOCATOR_SETTING,
            },
            environment={"KERAS_BACKEND": "tensorflow"},
            setting_variables={"onednn": "TF_ENABLE_ONEDNN_OPTS"},
            packages=("tensorflow", "tensorflow-cpu", "keras"),
            certified_code=KERAS_CODE,
            profiler="tf.profiler (XPlane)",
            # Keras on TensorFlow always runs a tf.function graph; "eager" is that graph as
            # Keras builds it by default, "compiled" the same graph through XLA.
            exec_modes={"eager": {"xla": False}, "compiled": {"xla": True}},
            cuda_refusal=NO_GPU_BUILD.format(framework="TensorFlow"),
        ),
        BackendSpec(
            name="keras_torch",
            api="keras",
            runtime="torch",
            adapter="frameworks.keras.on_torch:KerasTorchBackend",
            label="Keras on PyTorch",
            settings={**KERAS_SETTINGS, **TF32_SETTING, **FLUSH_SETTING, **ALLOCATOR_SETTING},
            environment={"KERAS_BACKEND": "torch"},
            # Keras on torch computes on CUDA whenever torch sees a GPU: a device=cpu run on a
            # GPU machine would silently run on the GPU without it.
            device_variable="KERAS_TORCH_DEVICE",
            faults_step_buffers=True,
            packages=("torch", "keras"),
            certified_code=KERAS_CODE,
            exec_modes=KERAS_EXEC_MODES,
            compile_check=inductor_compile_check,
        ),
        BackendSpec(
            name="keras_jax",
            api="keras",
            runtime="jax",
            adapter="frameworks.keras.on_jax:KerasJaxBackend",
            label="Keras on JAX",
            settings={**KERAS_SETTINGS, **ALLOCATOR_SETTING},
            environment={"KERAS_BACKEND": "jax"},
            thread_variables=xla_thread_variables,
            packages=("jax", "jaxlib", "keras"),
            certified_code=KERAS_CODE,
            exec_modes=KERAS_EXEC_MODES,
            cuda_refusal=NO_GPU_BUILD.format(framework="JAX"),
        ),
    )
}


# The backend the others are certified against (twinbench/parity/): Keras on TensorFlow, whose
# weights are the canonical layout as they are and which is the Keras the 2017 scripts ran.
REFERENCE = "tensorflow"
# The backend reports compare the others with by default (`python -m analysis --reference`):
# native torch, so a ratio below 1 reads "torch faster", as the report always has.
REPORT_REFERENCE = "torch"
# The backend of the 2017 benchmark's logs (analysis/load/legacy.py): Keras 2.0 on TensorFlow.
LEGACY_2017 = "tensorflow"


def names() -> list[str]:
    return list(BACKENDS)


def spec(name: str) -> BackendSpec:
    if name not in BACKENDS:
        raise ValueError(f"unknown backend '{name}'; choose one of: {', '.join(BACKENDS)}")
    return BACKENDS[name]


class _KeptOut(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Finds the runtimes kept out of this process and fails to load them: `import x` raises
    ModuleNotFoundError, while `"x" in sys.modules` stays false and importlib.util.find_spec
    still answers (torch._dynamo's trace rules look every framework up at import)."""

    def __init__(self, names: Sequence[str]) -> None:
        self.names = frozenset(names)

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname.partition(".")[0] in self.names:
            return importlib.machinery.ModuleSpec(fullname, self)
        return None

    def create_module(self, spec: Any) -> Any:
        raise ModuleNotFoundError(
            f"{spec.name} is kept out of this process: it runs another backend's runtime "
            "(frameworks/registry.py keep_to_own_runtime)",
            name=spec.name,
        )

    def exec_module(self, module: Any) -> None:  # never reached: create_module raises
        raise ModuleNotFoundError(module.__name__)


def keep_to_own_runtime(name: str) -> list[str]:
    """In a process that runs this one backend (a worker, a parity stage), make every other
    registered runtime unimportable; returns those kept out.

    In this project's one environment every runtime is installed, and libraries load one they
    merely find: TensorFlow's lite converter and Keras' orbax callback import JAX, and
    keras.utils.set_random_seed imports TensorFlow to seed tf.data, on every Keras runtime. A
    Keras-on-torch worker thus started three runtimes (5-7 s of CPU more than its own on the
    Zen 3) and kept TensorFlow's beside the one measured. Each of those imports guards against
    ImportError: the worker then runs as in an environment with its own runtime only, and a
    library that truly needed another fails at once rather than compute in it. (Not `None` in
    sys.modules, the shorter way: Keras asks `"tensorflow" in sys.modules` to learn whether it
    is inside a TensorFlow graph, and its augmentation layers then failed.)"""
    own = spec(name).runtime
    others = sorted(set(runtimes()) - {own} - set(sys.modules))
    if others:
        sys.meta_path.insert(0, _KeptOut(others))
    return others


def loaded_runtimes() -> list[str]:
    """The registered runtimes imported into this process so far: a worker's or a probe's own,
    and any a library pulled in beside it (a second runtime costs start-up and sits in memory)."""
    return [name for name in runtimes() if sys.modules.get(name) is not None]


def runtimes() -> tuple[str, ...]:
    """Every registered backend's runtime (its top-level module's name), each once."""
    return tuple(dict.fromkeys(s.runtime for s in BACKENDS.values()))


def packages() -> tuple[str, ...]:
    """Every backend's packages, each once: what a parity certificate's fingerprint lists."""
    return tuple(dict.fromkeys(p for s in BACKENDS.values() for p in s.packages))


def certified_code() -> tuple[str, ...]:
    """Every backend's certified source files, each once (what a certificate hashes)."""
    return tuple(dict.fromkeys(f for s in BACKENDS.values() for f in s.certified_code))
