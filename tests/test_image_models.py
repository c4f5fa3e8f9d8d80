"""The image workloads (cnn, cifar10_cnn, tl_mlp) beyond the parity harness: the conv weight
layout, the function each framework's half computes against a numpy reference written the way
Keras defines its layers, Keras' initial distributions on both sides, CIFAR-10's training-time
augmentation in both backends, and every model x backend training from the CLI.

Framework work runs in fresh processes (tests/image_checks.py, one framework each); this process
only compares numpy arrays.
"""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from numpy.lib.stride_tricks import sliding_window_view

import models
from frameworks.torch_native import weight_layout
from models.catalog import model_config
from twinbench.paths import REPO_ROOT

from .conftest import EVERY_BACKEND_TINY, read_result, run_cli

EXPECTED_PARAMS = {"cnn": 1_199_882, "cifar10_cnn": 1_250_858, "tl_mlp": 1_276_810}
BACKENDS = ("torch", "tensorflow")
PROBE = 6  # inputs per model for the forward checks
AUGMENT_BATCH = 256


# ---------------------------------------------------------------- conv weight layout (numpy only)


def test_conv2d_layout_maps_keras_hwio_to_torch_oihw_and_back_exactly():
    rng = np.random.default_rng(0)
    keras_w = {"kernel": rng.standard_normal((3, 5, 4, 7)), "bias": rng.standard_normal(7)}
    torch_w = weight_layout.TO_TORCH["conv2d"](keras_w)
    assert torch_w["weight"].shape == (7, 4, 3, 5)
    h, w, i, o = 2, 4, 1, 6  # any element: torch weight[o, i, h, w] is Keras kernel[h, w, i, o]
    assert torch_w["weight"][o, i, h, w] == keras_w["kernel"][h, w, i, o]
    assert np.array_equal(torch_w["weight"], np.einsum("hwio->oihw", keras_w["kernel"]))
    back = weight_layout.FROM_TORCH["conv2d"](torch_w)
    assert back.keys() == keras_w.keys()
    assert all(np.array_equal(back[k], keras_w[k]) for k in keras_w)
    again = weight_layout.TO_TORCH["conv2d"](back)
    assert all(np.array_equal(again[k], torch_w[k]) for k in torch_w)


def test_conv2d_layout_without_bias():
    kernel = np.arange(2 * 2 * 3 * 4, dtype=np.float32).reshape(2, 2, 3, 4)
    torch_w = weight_layout.TO_TORCH["conv2d"]({"kernel": kernel})
    assert set(torch_w) == {"weight"}
    assert np.array_equal(weight_layout.FROM_TORCH["conv2d"](torch_w)["kernel"], kernel)


# ---------------------------------------------------------------- numpy reference (float64)


def conv2d(x: np.ndarray, kernel: np.ndarray, bias: np.ndarray, padding: str) -> np.ndarray:
    """Keras Conv2D, stride 1: a cross-correlation of NHWC x with an HWIO kernel."""
    kh, kw = kernel.shape[:2]
    if padding == "same":
        x = np.pad(x, ((0, 0), (kh // 2, kh // 2), (kw // 2, kw // 2), (0, 0)))
    windows = sliding_window_view(x, (kh, kw), axis=(1, 2))  # [n, h, w, c, kh, kw]
    return np.tensordot(windows, kernel.transpose(2, 0, 1, 3), axes=3) + bias


def max_pool(x: np.ndarray, size: int) -> np.ndarray:
    n, h, w, c = x.shape
    h, w = h // size, w // size  # 'valid': a partial window at the edge is dropped
    return x[:, : h * size, : w * size].reshape(n, h, size, w, size, c).max(axis=(2, 4))


def relu(x: np.ndarray) -> np.ndarray:
    return np.maximum(x, 0)


def softmax(z: np.ndarray) -> np.ndarray:
    e = np.exp(z - z.max(axis=-1, keepdims=True))
    return e / e.sum(axis=-1, keepdims=True)


def reference(model: str, w: dict[str, np.ndarray], x: np.ndarray, flatten_order="NHWC"):
    """The Keras model's probabilities (inference: dropout is the identity) from canonical
    weights. flatten_order='NCHW' is torch's nn.Flatten order: the trap the models avoid."""
    w = {k: v.astype(np.float64) for k, v in w.items()}

    def conv(h, name, padding="valid"):
        return relu(conv2d(h, w[f"{name}/kernel"], w[f"{name}/bias"], padding))

    def dense(h, name):
        return h @ w[f"{name}/kernel"] + w[f"{name}/bias"]

    def flatten(h):
        return (h if flatten_order == "NHWC" else h.transpose(0, 3, 1, 2)).reshape(len(h), -1)

    h = x.astype(np.float64)
    if model == "cnn":
        h = relu(dense(flatten(max_pool(conv(conv(h, "conv1"), "conv2"), 2)), "fc1"))
    elif model == "cifar10_cnn":
        h = max_pool(conv(conv(h, "conv1", "same"), "conv2"), 2)
        h = max_pool(conv(conv(h, "conv3", "same"), "conv4"), 2)
        h = relu(dense(flatten(h), "fc1"))
    else:  # tl_mlp
        h = relu(dense(relu(dense(h, "fc1")), "fc2"))
    return softmax(dense(h, "predictions"))


def test_numpy_conv_reference_matches_a_direct_sum():
    rng = np.random.default_rng(1)
    x, k, b = rng.random((1, 5, 5, 2)), rng.random((3, 3, 2, 4)), rng.random(4)
    out = conv2d(x, k, b, "same")
    xp = np.pad(x, ((0, 0), (1, 1), (1, 1), (0, 0)))
    i, j, o = 0, 3, 2  # output pixel (0, 3), filter 2: sum over the 3x3x2 window
    assert out[0, i, j, o] == pytest.approx(
        np.sum(xp[0, i : i + 3, j : j + 3, :] * k[..., o]) + b[o]
    )
    assert conv2d(x, k, b, "valid").shape == (1, 3, 3, 4)


# ---------------------------------------------------------------- both frameworks' halves


def _inputs(rng: np.random.Generator) -> dict[str, np.ndarray]:
    inputs = {}
    for name in EXPECTED_PARAMS:
        arch = model_config(name)["arch"]
        if "input_dim" in arch:  # tl_mlp: flat 784-vectors
            shape = (arch["input_dim"],)
        else:  # NHWC images
            shape = (arch["side"], arch["side"], arch["channels"])
        inputs[f"{name}/x"] = rng.random((PROBE, *shape), dtype=np.float32)
    # uint8 levels, as the data: augmented pixels must be exact copies of input pixels
    levels = rng.integers(0, 256, (AUGMENT_BATCH, 32, 32, 3))
    inputs["augment/x"] = (levels / 255).astype(np.float32)
    return inputs


@pytest.fixture(scope="module")
def halves(tmp_path_factory) -> tuple[dict[str, np.ndarray], dict[str, dict[str, np.ndarray]]]:
    """(inputs, {framework: outputs}) from tests/image_checks.py, TensorFlow first."""
    workdir = tmp_path_factory.mktemp("image_checks")
    inputs = _inputs(np.random.default_rng(0))
    np.savez(workdir / "inputs.npz", **inputs)
    outputs = {}
    for framework in ("tensorflow", "torch"):
        proc = subprocess.run(
            [sys.executable, "-m", "tests.image_checks", framework, str(workdir)],
            cwd=REPO_ROOT,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert proc.returncode == 0, proc.stderr[-3000:]
        with np.load(Path(workdir) / f"{framework}.npz") as npz:
            outputs[framework] = dict(npz)
    return inputs, outputs


def _weights(out: dict[str, np.ndarray], model: str) -> dict[str, np.ndarray]:
    prefix = f"{model}/w:"
    return {k[len(prefix) :]: v for k, v in out.items() if k.startswith(prefix)}


@pytest.mark.parametrize("model", list(EXPECTED_PARAMS))
def test_both_halves_compute_the_keras_reference_function(halves, model):
    inputs, outputs = halves
    keras_weights = _weights(outputs["tensorflow"], model)
    expected = reference(model, keras_weights, inputs[f"{model}/x"])
    assert expected.std(axis=-1).min() > 1e-3  # not uniform: a layout error would show
    for framework in BACKENDS:
        probs = outputs[framework][f"{model}/probs"]
        assert probs.shape == (PROBE, 10) and probs.dtype == np.float32
        np.testing.assert_allclose(probs, expected, rtol=0, atol=1e-5, err_msg=framework)
    if model != "tl_mlp":  # the flatten trap is real: torch's own order gives another function
        wrong = reference(model, keras_weights, inputs[f"{model}/x"], flatten_order="NCHW")
        assert np.abs(wrong - expected).max() > 1e-3


@pytest.mark.parametrize("model", list(EXPECTED_PARAMS))
def test_analytic_flop_count_matches_torchs_flop_counter(halves, model):
    arch = model_config(model)["arch"]
    assert models.get(model).forward_flops(**arch) == halves[1]["torch"][f"{model}/flops"]


def _glorot_limit(kernel: np.ndarray) -> float:
    receptive = math.prod(kernel.shape[:-2])  # conv (kh, kw, in, out); dense (in, out)
    return math.sqrt(6 / (receptive * (kernel.shape[-2] + kernel.shape[-1])))


@pytest.mark.parametrize("model", list(EXPECTED_PARAMS))
def test_untransferred_models_start_from_keras_initial_distributions(halves, model):
    _, outputs = halves
    keras_w, torch_w = (_weights(outputs[f], model) for f in ("tensorflow", "torch"))
    assert keras_w.keys() == torch_w.keys()
    assert sum(v.size for v in torch_w.values()) == EXPECTED_PARAMS[model]
    for key, keras_value in keras_w.items():
        torch_value = torch_w[key]
        assert torch_value.shape == keras_value.shape, key
        if key.endswith("/bias"):
            assert not keras_value.any() and not torch_value.any(), key  # zeros
            continue
        if model == "tl_mlp":  # TensorLayer's truncated normal(0.1), cut at 2 standard deviations
            for framework, value in (("tensorflow", keras_value), ("torch", torch_value)):
                assert 0.19 < np.abs(value).max() <= 0.2, (framework, key)
                assert value.std() == pytest.approx(0.1 * 0.8796, rel=0.05), (framework, key)
            assert not np.array_equal(keras_value, torch_value)
            continue
        limit = _glorot_limit(keras_value)
        for framework, value in (("tensorflow", keras_value), ("torch", torch_value)):
            # glorot-uniform: U(-limit, limit), standard deviation limit / sqrt(3)
            assert 0.9 * limit < np.abs(value).max() <= limit, (framework, key)
            assert value.std() == pytest.approx(limit / math.sqrt(3), rel=0.1), (framework, key)
            assert abs(value.mean()) < 5 * limit / math.sqrt(3 * value.size), (framework, key)
        assert not np.array_equal(keras_value, torch_value)  # drawn, not copied


# ---------------------------------------------------------------- training-time augmentation


def _identify_transforms(x: np.ndarray, out: np.ndarray, reach: int) -> np.ndarray:
    """[n, 3] (flipped, dy, dx) that turns each x into out exactly: a left-right mirror and a
    shift by whole pixels with the edge pixels repeated into the vacated border (Keras'
    'nearest' fill). Shifts up to `reach` are tried; a row of -99 where none matches."""
    n, h, w = x.shape[:3]
    found = np.full((n, 3), -99)
    matches = np.zeros(n, int)
    batch = np.arange(n)[:, None, None]
    for flipped in (0, 1):
        source = x[:, :, ::-1] if flipped else x
        for dy in range(-reach, reach + 1):
            rows = np.clip(np.arange(h) - dy, 0, h - 1)
            for dx in range(-reach, reach + 1):
                cols = np.clip(np.arange(w) - dx, 0, w - 1)
                candidate = source[batch, rows[None, :, None], cols[None, None, :]]
                hit = (candidate == out).all(axis=(1, 2, 3))
                found[hit] = (flipped, dy, dx)
                matches += hit
    assert matches.max() <= 1  # random images: a transform is identified unambiguously
    return found


@pytest.mark.parametrize("framework", BACKENDS)
def test_augmentation_shifts_and_flips_each_training_image_as_configured(halves, framework):
    inputs, outputs = halves
    x, out = inputs["augment/x"], outputs[framework]
    spec = model_config("cifar10_cnn")["augment"]
    first, second = out["augment/first"], out["augment/second"]
    assert first.shape == x.shape and first.dtype == np.float32

    max_shift = round(spec["height_shift"] * 32)  # shifts up to 3.2 px, rounded: 3
    assert max_shift == round(spec["width_shift"] * 32) == 3
    transforms = _identify_transforms(x, first, reach=max_shift + 1)
    assert (transforms != -99).all(), "an image is not a shifted/mirrored copy of its input"
    flipped, dy, dx = transforms.T
    assert np.abs(dy).max() <= max_shift and np.abs(dx).max() <= max_shift
    # Uniform shifts: every whole-pixel shift from -3 to 3 occurs, in both directions.
    assert set(dy) == set(dx) == set(range(-max_shift, max_shift + 1))
    assert 0.35 < flipped.mean() < 0.65  # mirrored with probability 0.5
    assert ((dy == 0) & (dx == 0) & (flipped == 0)).mean() < 0.1  # few left untouched

    # Each batch draws anew; a fresh augmenter with the same seed repeats the first batch.
    again = _identify_transforms(x, second, reach=max_shift)
    assert (again != -99).all() and (again == transforms).all(axis=1).mean() < 0.2
    assert np.array_equal(out["augment/again"], first)
    if framework == "tensorflow":  # through the input pipeline: labels stay with their images
        assert np.array_equal(out["augment/labels"], np.arange(len(x)))


# ---------------------------------------------------------------- from the CLI

_runs: dict[tuple[str, ...], dict] = {}


@pytest.fixture(scope="module")
def cli_run(tmp_path_factory, every_backend_sweeps):
    """A short run's result.json: the shared tiny sweep's record (conftest's
    `every_backend_sweeps`, which tests/test_every_backend.py checks for every model) when the
    arguments are just backend and model, else one run with the same tiny settings, once per
    argument list for the whole module."""

    def run(*args: str) -> dict:
        if args not in _runs:
            backend, model = (a.split("=", 1)[1] for a in args[:2])
            if len(args) == 2:
                _runs[args] = every_backend_sweeps(backend)[2][model]
            else:
                run_dir = tmp_path_factory.mktemp("run")
                proc = run_cli(*args, *EVERY_BACKEND_TINY, f"hydra.run.dir={run_dir}")
                assert proc.returncode == 0, proc.stderr[-3000:]
                _runs[args] = read_result(run_dir)
        return _runs[args]

    return run


@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize("model", list(EXPECTED_PARAMS))
def test_image_model_trains_from_the_cli(cli_run, model, backend):
    r = cli_run(f"backend={backend}", f"model={model}")
    assert r["status"] == "ok" and (r["backend"], r["model"]) == (backend, model)
    assert r["params"] == r["expected_params"] == EXPECTED_PARAMS[model]
    assert r["steps_per_epoch"] == 2
    history = r["history"]
    assert all(math.isfinite(v) for v in history["loss"] + history["val_loss"])


@pytest.mark.parametrize("backend", BACKENDS)
def test_cifar10_training_batches_are_augmented_in_training(cli_run, backend):
    """Augmentation reaches the training batches in both adapters: from the same seed, initial
    weights and batch order, a run with cifar10_cnn's `augment:` block and one with
    `model.augment=null` train on different images, so their training losses differ."""
    on = cli_run(f"backend={backend}", "model=cifar10_cnn")
    off = cli_run(f"backend={backend}", "model=cifar10_cnn", "model.augment=null")
    assert on["config"]["model"]["augment"] and off["config"]["model"]["augment"] is None
    loss_on, loss_off = on["history"]["loss"][0], off["history"]["loss"][0]
    # Runs are deterministic on one core: without augmentation the two would be identical.
    assert abs(loss_on - loss_off) > 1e-6 * loss_off  # measured: 3e-3 (torch), 4e-4 (tf)


@pytest.mark.parametrize("backend", BACKENDS)
def test_tl_mlp_validates_where_tensorlayers_fit_did_on_its_held_out_images(tmp_path, backend):
    """tl_mlp's `validate_every: 5`: epochs 1 and 5 of 6 validate in both frameworks, the others
    hold null; its validation set is the last 10,000 training images (benchdata/holdout.py)."""
    proc = run_cli(
        f"backend={backend}", "model=tl_mlp", "epochs=6", "max_steps=2", "cpus=1",
        "measure.peak_probe=false", f"hydra.run.dir={tmp_path}",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = read_result(tmp_path)
    validated = [v is not None for v in r["history"]["val_loss"]]
    assert validated == [True, False, False, False, True, False]
    assert [v is not None for v in r["history"]["val_accuracy"]] == validated
    assert (r["data"]["n_train"], r["data"]["n_test"]) == (50_000, 10_000)
    assert "last 10000 training examples" in r["data"]["validation"]
