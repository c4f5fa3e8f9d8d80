"""Keras 3 on every runtime it supports: what they share (common.py: the models' Keras builders,
compile and fit, canonical weights; optimizers.py; augment.py) and one module per runtime
(on_tensorflow.py, on_torch.py, on_jax.py) with only what differs. Importing the package loads
nothing: Keras must not load before KERAS_BACKEND is set (frameworks/registry.py)."""
