"""The record's `attention` block says what ran, asked of the framework (frameworks/
attention_probe.py): torch's dispatcher names the kernel its fused call takes, and Keras'
MultiHeadAttention says whether it took its fused route, which it leaves under dropout
whatever `arch.attention` asked."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from frameworks import attention_probe
from twinbench.paths import REPO_ROOT

torch = pytest.importorskip("torch")


def _torch_model(kernel: str, dropout: float, causal: bool):
    from models.torch_transformer import SelfAttention

    return torch.nn.Sequential(SelfAttention(8, 2, 4, dropout, causal=causal, kernel=kernel))


def _cfg(asked: str) -> dict:
    return {"arch": {"attention": asked, "maxlen": 6}}


def test_torch_explicit_runs_the_three_steps():
    found = attention_probe.ran(_torch_model("explicit", 0.0, False), _cfg("explicit"), 2)
    assert found["asked"] == "explicit" and found["path"] == "explicit"
    assert found["layers"] == 1


def test_torch_fused_names_the_kernel_its_dispatcher_picks():
    found = attention_probe.ran(_torch_model("fused", 0.0, False), _cfg("fused"), 2)
    assert found["path"] == "fused"
    assert found["kernel"].startswith("scaled_dot_product_attention: ")
    # With dropout on the probabilities torch's CPU flash kernel is not eligible: the record
    # names the kernel that ran (math), which a record of the setting alone could not.
    dropped = attention_probe.ran(_torch_model("fused", 0.2, True), _cfg("fused"), 2)
    assert dropped["kernel"] == "scaled_dot_product_attention: math"
    assert dropped["kernel"] != found["kernel"]


def test_a_model_without_an_attention_setting_has_no_block():
    assert attention_probe.ran(torch.nn.Linear(2, 2), {"arch": {}}, 2) is None


KERAS_SCRIPT = """
import json, keras
from frameworks import attention_probe
from models import keras_transformer
out = {}
for asked in ("fused", "explicit"):
    for dropout in (0.0, 0.2):
        x = keras.Input((6, 8))
        a = keras_transformer.attention_layer(2, 4, dropout, asked, name="att")(x, x)
        model = keras.Model(x, a)
        found = attention_probe.ran(model, {"arch": {"attention": asked, "maxlen": 6}}, 2)
        out[f"{asked} {dropout}"] = found["path"]
print(json.dumps(out))
"""


def test_keras_reports_its_explicit_route_under_dropout_whatever_was_asked():
    env = {**os.environ, "KERAS_BACKEND": "torch"}  # the runtime already here; no TensorFlow
    proc = subprocess.run([sys.executable, "-c", KERAS_SCRIPT], cwd=REPO_ROOT, env=env,
                          capture_output=True, text=True, timeout=120)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    paths = json.loads(proc.stdout.strip().splitlines()[-1])
    assert paths == {
        "fused 0.0": "fused",
        "fused 0.2": "explicit",  # asked for fused; Keras took its explicit path
        "explicit 0.0": "explicit",
        "explicit 0.2": "explicit",
    }
