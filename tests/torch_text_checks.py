"""torch-side checks of the text layouts, run by tests/test_text_layouts.py in a fresh process
(`python -m tests.torch_text_checks`) so that no pytest process ever imports torch next to
TensorFlow.

Each check builds a torch module, loads canonical (Keras-layout) weights through
frameworks/torch_native/weight_layout.py and compares it with a float64 numpy reference written
the way
Keras computes: one (in, 4u) kernel, one (u, 4u) recurrent kernel, one bias, gates in the order
input, forget, cell, output; BatchNormalization's (x - mean) / sqrt(var + eps) * gamma + beta.
"""

from __future__ import annotations

import numpy as np
import torch

from frameworks.torch_native.backend import TorchBackend
from frameworks.torch_native.weight_layout import canonical_to_torch_state
from models import bilstm, charlstm, textgen

ATOL = 1e-5  # float32 torch against a float64 reference over a few small steps
rng = np.random.default_rng(0)


def sigmoid(z: np.ndarray) -> np.ndarray:
    return 1.0 / (1.0 + np.exp(-z))


def keras_lstm(x: np.ndarray, kernel, recurrent, bias) -> tuple[np.ndarray, np.ndarray]:
    """Keras' LSTM over x [n, t, in]: every step's h [n, t, u] and the last h [n, u]."""
    units = recurrent.shape[0]
    h = np.zeros((len(x), units))
    c = np.zeros((len(x), units))
    steps = []
    for t in range(x.shape[1]):
        z = x[:, t] @ kernel + h @ recurrent + bias
        i, f, g, o = (z[:, k * units : (k + 1) * units] for k in range(4))
        c = sigmoid(f) * c + sigmoid(i) * np.tanh(g)
        h = sigmoid(o) * np.tanh(c)
        steps.append(h)
    return np.stack(steps, 1), h


def keras_batchnorm(z: np.ndarray, w: dict[str, np.ndarray], eps: float) -> np.ndarray:
    return (z - w["moving_mean"]) / np.sqrt(w["moving_variance"] + eps) * w["gamma"] + w["beta"]


def random_lstm(prefix: str, inputs: int, units: int) -> dict[str, np.ndarray]:
    shapes = {"kernel": (inputs, 4 * units), "recurrent_kernel": (units, 4 * units)}
    w = {
        f"{prefix}lstm_cell/{k}": rng.normal(0, 0.4, s).astype(np.float32)
        for k, s in shapes.items()
    }
    w[f"{prefix}lstm_cell/bias"] = rng.normal(0, 0.4, 4 * units).astype(np.float32)
    return w


def lstm_args(w: dict[str, np.ndarray], prefix: str) -> list[np.ndarray]:
    return [w[f"{prefix}lstm_cell/{k}"] for k in ("kernel", "recurrent_kernel", "bias")]


def load(module: torch.nn.Module, layers: dict[str, str], weights: dict[str, np.ndarray]):
    state = canonical_to_torch_state(layers, weights)
    missing = {k for k in module.state_dict() if not k.endswith("num_batches_tracked")} - set(state)
    assert not missing, f"canonical weights left torch parameters unset: {missing}"
    module.load_state_dict({k: torch.from_numpy(v) for k, v in state.items()}, strict=False)
    return module.eval()


def check_lstm_step_order() -> float:
    """nn.LSTM with converted weights is Keras' LSTM, step by step."""
    inputs, units = 5, 4
    w = random_lstm("", inputs, units)
    lstm = torch.nn.LSTM(inputs, units, batch_first=True)
    grouped = {"lstm/" + k: v for k, v in w.items()}
    holder = torch.nn.Module()
    holder.lstm = lstm
    load(holder, {"lstm": "lstm"}, grouped)
    x = rng.normal(size=(3, 7, inputs)).astype(np.float32)
    ref_all, ref_last = keras_lstm(x, *lstm_args(w, ""))
    with torch.no_grad():
        out, (h_n, _) = lstm(torch.from_numpy(x))
    err = max(np.abs(out.numpy() - ref_all).max(), np.abs(h_n[0].numpy() - ref_last).max())
    assert err < ATOL, f"LSTM differs from Keras' gate order by {err}"
    return float(err)


def check_bidirectional_final_states() -> float:
    """models/bilstm.py's torch half = Keras' Bidirectional: forward h after the last step
    concatenated with backward h after reading back to the first."""
    vocab, maxlen, dims, units = 11, 6, 5, 4
    model = bilstm.torch_model(vocab, maxlen, dims, units, "sigmoid", dropout=0.0)
    w = {"embedding/embeddings": rng.normal(size=(vocab, dims)).astype(np.float32)}
    w |= {f"bidirectional/{k}": v for k, v in random_lstm("forward_lstm/", dims, units).items()}
    w |= {f"bidirectional/{k}": v for k, v in random_lstm("backward_lstm/", dims, units).items()}
    w["predictions/kernel"] = rng.normal(size=(2 * units, 1)).astype(np.float32)
    w["predictions/bias"] = rng.normal(size=1).astype(np.float32)
    load(model, bilstm.LAYERS, w)
    ids = rng.integers(0, vocab, (3, maxlen))
    emb = w["embedding/embeddings"][ids]

    _, forward = keras_lstm(emb, *lstm_args(w, "bidirectional/forward_lstm/"))
    _, backward = keras_lstm(emb[:, ::-1], *lstm_args(w, "bidirectional/backward_lstm/"))
    ref = np.concatenate([forward, backward], 1) @ w["predictions/kernel"] + w["predictions/bias"]
    with torch.no_grad():
        got = model(torch.from_numpy(ids)).numpy()
    err = float(np.abs(got - ref).max())
    assert err < ATOL, f"bidirectional LSTM differs from Keras by {err}"
    return err


def check_textgen_heads_and_batchnorm() -> float:
    """models/textgen.py's torch half, weights and BatchNorm statistics from Keras, in
    inference mode: both heads equal a numpy Keras forward pass (eps 1e-3 included)."""
    chars, maxlen, dims, units, h1, h2, eps = 7, 6, 5, 4, 6, 5, 1e-3
    model = textgen.torch_model(maxlen, chars, dims, units, "sigmoid", h1, h2, 0.99, eps)
    assert model.bn_1.eps == eps and abs(model.bn_1.momentum - 0.01) < 1e-12

    def f32(*shape, low=None):
        a = rng.normal(size=shape) if low is None else rng.uniform(low, 2.0, shape)
        return a.astype(np.float32)

    w = {"embedding/embeddings": f32(chars, dims)}
    w |= {f"lstm/{k}": v for k, v in random_lstm("", dims, units).items()}
    w |= {"aux/kernel": f32(units, chars), "aux/bias": f32(chars), "dense_1/kernel": f32(units, h1)}
    w |= {"dense_2/kernel": f32(h1, h2), "main/kernel": f32(h2, chars), "main/bias": f32(chars)}
    for name, n in (("bn_1", h1), ("bn_2", h2)):
        w |= {f"{name}/gamma": f32(n), f"{name}/beta": f32(n), f"{name}/moving_mean": f32(n)}
        w[f"{name}/moving_variance"] = f32(n, low=0.01)  # small variances: eps matters
    load(model, textgen.LAYERS, w)
    ids = rng.integers(0, chars, (4, maxlen))
    _, h = keras_lstm(w["embedding/embeddings"][ids], *lstm_args(w, "lstm/"))

    def bn(z, name):
        return keras_batchnorm(
            z,
            {k: w[f"{name}/{k}"] for k in ("gamma", "beta", "moving_mean", "moving_variance")},
            eps,
        )

    z = np.maximum(bn(h @ w["dense_1/kernel"], "bn_1"), 0)
    z = np.maximum(bn(z @ w["dense_2/kernel"], "bn_2"), 0)
    ref = {
        "main": z @ w["main/kernel"] + w["main/bias"],
        "aux": h @ w["aux/kernel"] + w["aux/bias"],
    }
    with torch.no_grad():
        got = model(torch.from_numpy(ids))
    err = max(float(np.abs(got[k].numpy() - ref[k]).max()) for k in ref)
    assert err < ATOL, f"textgen heads differ from Keras by {err}"
    return err


def check_running_variance_is_unbiased() -> float:
    """The documented trap: torch's running_var takes the unbiased batch variance."""
    model = textgen.torch_model(6, 7, 5, 4, "sigmoid", 6, 5, 0.99, 1e-3)
    bn = model.bn_1.train()
    z = torch.from_numpy(rng.normal(2.0, 3.0, (8, 6)).astype(np.float32))
    with torch.no_grad():
        bn(z)
    biased = z.numpy().astype(np.float64).var(0)
    unbiased = biased * 8 / 7
    got = bn.running_var.numpy()
    assert np.allclose(got, 0.99 + 0.01 * unbiased, atol=1e-6)
    assert not np.allclose(got, 0.99 + 0.01 * biased, atol=1e-4)
    return float(np.abs(got - (0.99 + 0.01 * biased)).max())


def check_keras_initialisation_and_counts() -> dict[str, int]:
    """Untransferred torch halves start from Keras' initializers and count Keras' parameters."""
    torch.manual_seed(0)
    model = bilstm.torch_model(20000, 100, 128, 64, "sigmoid", 0.5)
    lstm, units = model.bidirectional, 64
    for suffix in ("", "_reverse"):
        bias_hh = getattr(lstm, f"bias_hh_l0{suffix}")
        assert not bias_hh.requires_grad and not bias_hh.any(), "bias_hh must be a frozen zero"
        bias = getattr(lstm, f"bias_ih_l0{suffix}").detach().numpy()
        expected = np.concatenate([np.zeros(units), np.ones(units), np.zeros(2 * units)])
        assert np.array_equal(bias, expected), "Keras' unit forget-gate bias, zeros elsewhere"
        rec = getattr(lstm, f"weight_hh_l0{suffix}").detach().numpy().astype(np.float64)
        assert np.allclose(rec.T @ rec, np.eye(units), atol=1e-5), "orthogonal recurrent kernel"
        kernel = getattr(lstm, f"weight_ih_l0{suffix}").detach().numpy()
        limit = np.sqrt(6 / (128 + 4 * units))  # glorot-uniform over Keras' (in, 4u) kernel
        assert np.abs(kernel).max() <= limit and np.abs(kernel).max() > 0.95 * limit
    emb = model.embedding.weight.detach().numpy()
    assert np.abs(emb).max() <= 0.05 and np.abs(emb).max() > 0.049
    count = TorchBackend().count_params
    counts = {
        "bilstm": count(model),
        "charlstm": count(charlstm.torch_model(40, 57, 128, "sigmoid")),
        "textgen": count(textgen.torch_model(40, 57, 300, 128, "sigmoid", 512, 256, 0.99, 1e-3)),
    }
    assert counts == {"bilstm": 2_658_945, "charlstm": 102_585, "textgen": 458_430}, counts
    return counts


def main() -> int:
    checks = [
        check_lstm_step_order,
        check_bidirectional_final_states,
        check_textgen_heads_and_batchnorm,
        check_running_variance_is_unbiased,
        check_keras_initialisation_and_counts,
    ]
    for check in checks:
        print(f"{check.__name__}: {check()}", flush=True)
    return 0


if __name__ == "__main__":
    from twinbench.launch.lifeline import leave_without_teardown

    leave_without_teardown(main())  # printed: skip the framework's teardown
