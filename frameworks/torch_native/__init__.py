"""PyTorch's own API: the adapter (backend.py), its optimizers with the 2017 formula
(optimizers.py), augmentation (augment.py) and the canonical <-> torch weight layout
(weight_layout.py)."""
