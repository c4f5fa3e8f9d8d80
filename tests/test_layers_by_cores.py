"""Where the cores go (analysis/compute/layers_by_cores.py): each layer's op time at the fewest
and the most cores profiled, the profiled step first, so a speed-up is explained by layer."""

from __future__ import annotations

import pytest

from analysis.compute import layers_by_cores
from analysis.load.table import runs_table

from . import test_analysis_fakes as fakes


def _profiled(root, backend: str, cpus: int, repeat: int, ops: dict[str, float], wall: float,
              threads: tuple[int, int] | None = None):  # fmt: skip
    rec = fakes.record(backend, cpus, [1.0], repeat=repeat, repeats=2, threads=threads)
    rec["profile"] = {"ops_ms": ops, "wall_ms": wall, "host_other_ms": 0.0}
    fakes.write(root, f"mlp_{backend}_cpu{cpus}_{threads}/repeat-{repeat}", rec)


def test_each_layer_s_op_time_at_the_fewest_and_the_most_cores_with_the_step_first(tmp_path):
    # torch's GEMM halves on two cores and its dropout does not (two repeats a core count,
    # the median each); TensorFlow's GEMM stays while its optimizer's ops overlap: their op
    # time grows, and the step's wall time says what the second core bought.
    for repeat, jitter in ((0, 0.0), (1, 0.2)):
        _profiled(tmp_path, "torch", 1, repeat, {"fc1": 2.0 + jitter, "dropout": 1.5}, 4.0)
        _profiled(tmp_path, "torch", 2, repeat, {"fc1": 1.0 + jitter, "dropout": 1.5}, 3.0)
        _profiled(tmp_path, "tensorflow", 1, repeat, {"fc1": 1.4, "optimizer": 1.5}, 4.0)
        _profiled(tmp_path, "tensorflow", 2, repeat, {"fc1": 1.4, "optimizer": 3.6}, 3.6)
    _profiled(tmp_path, "keras_jax", 1, 0, {"fc1": 1.0}, 1.0)  # one core count: no row
    # 2 cores with one inter-op thread measure the threads, not the cores: left out, as in the
    # hardware effect (with them, TensorFlow's 2-core medians would mix two designs)
    for repeat in (0, 1, 2):
        _profiled(tmp_path, "tensorflow", 2, repeat, {"fc1": 9.0, "optimizer": 9.0}, 9.0, (2, 1))
    t = layers_by_cores.table(runs_table([tmp_path]))
    assert list(dict.fromkeys(t["backend"])) == ["torch", "tensorflow"]
    torch = t[t["backend"] == "torch"].set_index("layer")
    assert torch.index[0] == layers_by_cores.WALL
    assert torch.loc["fc1", "few_ms"] == pytest.approx(2.1)  # median of 2.0 and 2.2
    assert torch.loc["fc1", "speedup"] == pytest.approx(2.1 / 1.1)
    assert torch.loc["dropout", "speedup"] == 1.0
    assert (torch.loc["fc1", "few_cpus"], torch.loc["fc1", "most_cpus"]) == (1, 2)
    tf = t[t["backend"] == "tensorflow"].set_index("layer")
    assert tf.loc["optimizer", "speedup"] == pytest.approx(1.5 / 3.6)
    assert tf.loc[layers_by_cores.WALL, "speedup"] == pytest.approx(4.0 / 3.6)
    shown = layers_by_cores.lines(runs_table([tmp_path]))
    assert shown[0].startswith("where the cores go")
    torch_line = "torch cpu1 -> cpu2: step (profiled wall time) 4.00 -> 3.00; fc1 2.10 -> 1.10"
    assert torch_line in shown[1]


def test_without_profiles_at_two_core_counts_there_is_nothing_to_show(tmp_path):
    _profiled(tmp_path, "torch", 1, 0, {"fc1": 2.0}, 2.0)
    fakes.write(tmp_path, "unprofiled", fakes.record("torch", 2, [1.0]))
    assert layers_by_cores.table(runs_table([tmp_path])).empty
    assert layers_by_cores.lines(runs_table([tmp_path])) == []
