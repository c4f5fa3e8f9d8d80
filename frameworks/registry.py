"""Every backend twinbench can run, by name: the one place a new framework is added.

A backend is a model API on a runtime. `torch` is torch's own API on torch's runtime;
`tensorflow` is Keras 3 on TensorFlow. Keeping the two apart lets the report split a framework
gap into the API's cost (same runtime, different API) and the runtime's (same API, different
runtime).

Importing this module never loads a framework: the worker imports exactly one adapter, after
pinning CPUs and setting the thread variables the entry names.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class BackendSpec:
    name: str  # the conf/backend/<name>.yaml file and the `backend=` value
    api: str  # the model API the user writes: "keras" or a framework's own ("torch")
    runtime: str  # the engine that executes it: "tensorflow", "torch", "jax"
    adapter: str  # "module:Class", a frameworks.base.Backend, imported lazily
    label: str  # how reports name it

    def load(self):
        """The adapter instance; this is where the framework import happens."""
        import importlib

        module_name, cls = self.adapter.split(":")
        return getattr(importlib.import_module(module_name), cls)()


BACKENDS: dict[str, BackendSpec] = {
    spec.name: spec
    for spec in (
        BackendSpec(
            name="torch",
            api="torch",
            runtime="torch",
            adapter="frameworks.torch_backend:TorchBackend",
            label="PyTorch",
        ),
        BackendSpec(
            name="tensorflow",
            api="keras",
            runtime="tensorflow",
            adapter="frameworks.tensorflow_backend:TensorFlowBackend",
            label="Keras on TensorFlow",
        ),
    )
}


def names() -> list[str]:
    return list(BACKENDS)


def spec(name: str) -> BackendSpec:
    if name not in BACKENDS:
        raise ValueError(f"unknown backend '{name}'; choose one of: {', '.join(BACKENDS)}")
    return BACKENDS[name]
