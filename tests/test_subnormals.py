"""The subnormal count after training (frameworks/subnormals.py) and the flag it raises: it must
find subnormals of every float width from their bits, even on a thread that reads them as zero,
and must flag a backend that computes with them, not one that flushes them."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from frameworks import subnormals
from twinbench.result.blocks import SUBNORMALS_FLAG

SUBNORMAL = {"float64": 1e-310, "float32": 1e-40, "float16": 1e-7, "bfloat16": 1e-39}
SMALLEST_NORMAL = {"float64": 2.3e-308, "float32": 1.2e-38, "float16": 6.2e-5, "bfloat16": 1.2e-38}


def _dtype(name: str):
    return ml_dtypes.bfloat16 if name == "bfloat16" else np.dtype(name)


@pytest.mark.parametrize("name", sorted(SUBNORMAL))
def test_counts_subnormals_of_every_float_width_and_nothing_else(name):
    tiny, normal = SUBNORMAL[name], SMALLEST_NORMAL[name]
    values = np.array(
        [0.0, -0.0, tiny, -tiny, normal, -normal, 1.0, np.inf, np.nan], dtype=_dtype(name)
    )
    assert subnormals.count(values) == (9, 2)
    # a strided view (a transposed weight) is counted too
    assert subnormals.count(np.stack([values, values]).T) == (18, 4)


def test_a_non_float_array_counts_nothing():
    assert subnormals.count(np.arange(10, dtype=np.int64)) == (0, 0)


def test_counts_from_bits_on_a_thread_that_reads_subnormals_as_zero():
    """TensorFlow's threads (and torch's with flush_denormal) set denormals-are-zero: a value
    comparison there sees a subnormal equal to 0. The bit count must not."""
    torch = pytest.importorskip("torch")
    values = np.array([1e-40, 1e-39, 1.0], dtype=np.float32)
    if not torch.set_flush_denormal(True):
        pytest.skip("this CPU cannot flush denormals")
    try:
        by_value = int(
            np.count_nonzero((np.abs(values) < np.finfo(np.float32).tiny) & (values != 0))
        )
        found = subnormals.count(values)
    finally:
        torch.set_flush_denormal(False)
    assert by_value == 0, "the thread did not read subnormals as zero: this test shows nothing"
    assert found == (3, 2)


def test_tally_gives_each_groups_share():
    found = subnormals.tally(
        {
            "parameters": [np.array([1e-40, 1.0, 2.0, 3.0], np.float32)],
            "optimizer_state": [np.array([1.0], np.float32), np.array([5], np.int64)],
            "gradients": [],
        }
    )
    assert found["values"] == {"parameters": 4, "optimizer_state": 1, "gradients": 0}
    assert found["subnormal"] == {"parameters": 1, "optimizer_state": 0, "gradients": 0}
    assert found["share"] == {"parameters": 0.25, "optimizer_state": 0.0, "gradients": 0.0}


def test_a_trained_torch_model_is_counted_with_its_gradients_state_and_predictions():
    torch = pytest.importorskip("torch")
    model = torch.nn.Sequential(torch.nn.Linear(4, 3), torch.nn.Softmax(dim=-1))
    optimizer = torch.optim.RMSprop(model.parameters(), lr=1e-3)
    x = torch.ones(2, 4)
    model(x).sum().backward()
    optimizer.step()
    with torch.no_grad():
        model[0].weight[0, 0] = 1e-40  # a weight gone subnormal
    found = subnormals.measured(model, optimizer, lambda: model(x).detach().numpy())
    assert "error" not in found, found
    assert found["values"]["parameters"] == 4 * 3 + 3
    assert found["subnormal"]["parameters"] == 1
    assert found["values"]["gradients"] == 15
    assert found["values"]["optimizer_state"] >= 15  # square_avg, plus the step counters
    assert found["values"]["predictions"] == 2 * 3
    assert found["seconds"] >= 0


def test_a_failing_count_says_why_instead_of_failing_the_run():
    found = subnormals.measured(object(), None)
    assert set(found) == {"error"} and found["error"]


SHARES = {"share": {"parameters": 0.0, "gradients": 0.0004, "predictions": 0.02}}


def test_flags_a_slowed_run_whose_kernels_compute_with_subnormals_and_names_where_they_are():
    line = subnormals.flag(SHARES, {"flush_denormal": False}, share=0.001, slowed=1.48)
    assert line is not None and "slowed 1.48x" in line
    assert "after training 2.00% of the predictions are subnormal" in line
    assert "gradients" not in line  # below the share
    assert "backend.flush_denormal=true" in line


def test_no_flag_where_the_kernels_flush_the_share_is_small_or_the_steps_did_not_slow():
    computes = {"flush_denormal": False}
    assert subnormals.flag(SHARES, {"flush_denormal": True}, share=0.001, slowed=1.48) is None
    assert subnormals.flag(SHARES, computes, share=0.05, slowed=1.48) is None
    assert subnormals.flag(None, computes, share=0.001, slowed=1.48) is None
    assert subnormals.flag({"error": "x"}, computes, share=0.001, slowed=1.48) is None
    # a count alone qualifies no figure: no drift, or steps that got faster
    assert subnormals.flag(SHARES, computes, share=0.001, slowed=None) is None
    assert subnormals.flag(SHARES, computes, share=0.001, slowed=0.8) is None


def test_a_backend_without_a_flush_setting_is_told_so():
    line = subnormals.flag(SHARES, {}, share=0.001, slowed=1.2)
    assert line is not None and "no setting that flushes them" in line


def test_the_flag_lists_every_group_over_the_share():
    shares = {"share": {"gradients": 0.0053, "optimizer_state": 0.002, "predictions": 0.0703}}
    line = subnormals.flag(shares, {"flush_denormal": False}, share=0.001, slowed=1.2)
    assert (
        "0.53% of the gradients, 0.20% of the optimizer state and 7.03% of the predictions are"
        in line
    )


def test_the_worker_flags_a_drifting_run_only(compose):
    """run_flags reads the drift from the run's timing: the same count flags the drifting run."""
    from twinbench.config.spec import build_spec
    from twinbench.result.blocks import Drift, Timing
    from twinbench.worker import assemble

    spec = build_spec(compose("backend=torch", "model=mlp", "cpus=1"))
    state = (SHARES, {"flush_denormal": False})
    drifted = Timing(drift=Drift(ratio_last_to_first_third=1.5, drifting=True))
    steady = Timing(drift=Drift(ratio_last_to_first_third=1.02, drifting=False))
    (line,) = assemble.run_flags(spec, drifted, trained_state=state)
    assert line.startswith(SUBNORMALS_FLAG) and "slowed 1.50x" in line
    assert assemble.run_flags(spec, steady, trained_state=state) == []
