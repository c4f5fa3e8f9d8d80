"""One module per architecture, each holding its PyTorch module and its Keras builder side by side.

A model module provides:
- `torch_model(**arch)` and `keras_model(**arch)`: the two halves, from plain numbers in
  conf/model/<name>.yaml `arch:` (framework imports are local, so importing a model module loads
  neither framework);
- `OUTPUT`: the last layer's activation ('softmax' or 'sigmoid'). Keras models end in it; torch
  modules return the pre-activation logits and the loss applies it, as idiomatic torch does;
- `LAYERS`: canonical layer name -> layer kind, in order. Canonical weights are Keras' layout
  keyed '<layer>/<weight>'; frameworks/torch_native/weight_layout.py maps each kind to torch's
  layout;
- `PRIMARY_OUTPUT`, for a model with several heads (conf `loss_weights`, e.g. textgen): the
  head whose accuracy is reported and whose probabilities `predict` returns. Both halves then
  return a dict head -> output, and every head is trained on the same labels.
An arch value left null in the conf is a size only the data knows (fastText's bigram vocabulary,
the corpus' character count): benchdata.fill_arch takes it from the data's info["dims"].
"""

from __future__ import annotations

import importlib
from types import ModuleType

from models.catalog import names

# The two halves every model module defines (the docstring above): what a config's arch must fit.
BUILDERS = ("torch_model", "keras_model")


def get(name: str) -> ModuleType:
    if name not in names():
        choices = ", ".join(names())
        raise ValueError(f"unknown model '{name}'; choose one of: {choices}")
    return importlib.import_module(f"models.{name}")
