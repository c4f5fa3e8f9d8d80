"""Speed of light per workload: the model's own products timed alone (best library per kernel),
summed per step; a run's steady step as a fraction of it; cached per machine, cores, model and
batch size; shown by the report."""

from __future__ import annotations

import pytest

import models
from models import flops
from twinbench.measure import speed_of_light as sol
from twinbench.measure.speed_of_light import Kernel

from .test_flops import DATA_SIZES, MODELS

MLP = {"input_dim": 784, "hidden": 512, "classes": 10}


def _products(name: str, compose) -> list[flops.Product]:
    arch = compose(f"model={name}")["model"]["arch"]
    return models.get(name).flop_products(**{k: DATA_SIZES.get(k, v) for k, v in arch.items()})


@pytest.mark.parametrize("name", MODELS)
def test_the_timed_kernels_do_exactly_the_flops_counted_per_pass(name, compose):
    products = _products(name, compose)
    uses = sol.kernels_of(products, 32)
    for stage in ("forward", "input_grad", "weight_grad"):
        timed = sum(u.count * u.kernel.flop for u in uses if u.stage == stage)
        assert timed == sum(getattr(p, stage) for p in products) * 32, stage


def test_mlp_is_eight_gemms_of_its_own_shapes_at_its_batch_size():
    uses = sol.kernels_of(models.get("mlp").flop_products(**MLP), 128)
    got = [(u.layer, u.stage, u.kernel.shape) for u in uses]
    assert got == [
        ("fc1", "forward", (128, 784, 512)),  # no input gradient: fc1 reads the data
        ("fc1", "weight_grad", (784, 128, 512)),
        ("fc2", "forward", (128, 512, 512)),
        ("fc2", "input_grad", (128, 512, 512)),
        ("fc2", "weight_grad", (512, 128, 512)),
        ("predictions", "forward", (128, 512, 10)),
        ("predictions", "input_grad", (128, 10, 512)),
        ("predictions", "weight_grad", (512, 128, 10)),
    ]
    assert {u.kernel.op for u in uses} == {"gemm"} and all(u.count == 1 for u in uses)


def test_an_lstm_runs_its_gemms_once_per_timestep_and_one_recurrent_input_gradient_less():
    uses = sol.kernels_of(flops.lstm_layer("lstm", 5, 3, 4), 2)
    counts = {(u.layer, u.stage): (u.kernel.shape, u.count) for u in uses}
    assert counts[("lstm.input", "forward")] == ((2, 3, 16), 5)
    assert counts[("lstm.recurrent", "input_grad")] == ((2, 16, 4), 4)
    assert counts[("lstm.recurrent", "weight_grad")] == ((4, 2, 16), 5)


def test_torchs_conv_backward_kernels_are_the_input_and_weight_gradients():
    import torch

    shape = (2, 4, 5, 3, 6, 3)  # batch, out_h, out_w, in_ch, out_ch, k
    x = torch.randn(2, 3, 6, 7, requires_grad=True)
    w = torch.randn(6, 3, 3, 3, requires_grad=True)
    torch.nn.functional.conv2d(x, w).sum().backward()
    gx = sol._op("torch", Kernel("conv2d_input_grad", shape))()[0]
    gw = sol._op("torch", Kernel("conv2d_weight_grad", shape))()[1]
    assert gx.shape == x.grad.shape and gw.shape == w.grad.shape
    assert sol._op("torch", Kernel("conv2d", shape))().shape == (2, 6, 4, 5)
    assert Kernel("conv2d", shape).flop == flops.conv2d(4, 5, 3, 6, 3, 3) * 2


def test_mlps_shapes_timed_for_real_in_their_own_process_give_a_step_limit():
    uses = sol.kernels_of(models.get("mlp").flop_products(**MLP), 16)
    result = sol._run_probe("numpy", sol.unique_kernels(uses), 3, 0.001, 1)
    assert "error" not in result and all(k["seconds"] > 0 for k in result["kernels"])
    limit = sol.combine(uses, {"numpy": result})
    assert limit["sol_step_s"] == pytest.approx(sum(r["seconds"] for r in limit["kernels"]))
    assert limit["library_step_s"]["numpy"] == pytest.approx(limit["sol_step_s"])


def _fake_probe(calls, rates):
    """Each library runs a kernel at the rate (GFLOP/s) chosen here; numpy has no conv."""

    def run_probe(lib, kernels, repeats, min_repeat_s, cores):
        calls.append((lib, cores))
        timed = [
            {"op": k.op, "shape": [*k.shape],
             "seconds": None if lib == "numpy" and k.op != "gemm" else k.flop / rates[lib] / 1e9}
            for k in kernels
        ]  # fmt: skip
        return {"library": lib, "kernel": lib, "kernels": timed}

    return run_probe


def test_the_best_library_per_kernel_is_summed_and_a_library_without_convolutions_has_no_sum():
    uses = sol.kernels_of(
        [*flops.conv2d_layer("conv1", 4, 4, 1, 2, 3, input_grad=False),
         *flops.dense_layer("fc", 8, 2)], 1,
    )  # fmt: skip
    probe = _fake_probe([], {"numpy": 4.0, "torch": 1.0, "tensorflow": 2.0})
    kernels = sol.unique_kernels(uses)
    per_library = {lib: probe(lib, kernels, 1, 0, 1) for lib in ("numpy", "torch", "tensorflow")}
    limit = sol.combine(uses, per_library)
    best = {(r["layer"], r["stage"]): r["best_library"] for r in limit["kernels"]}
    assert best[("conv1", "forward")] == "tensorflow" and best[("fc", "forward")] == "numpy"
    conv_flop, fc_flop = 2 * 16 * 2 * 9 * 2, 2 * 8 * 2 * 3  # fwd + wgrad; fwd + igrad + wgrad
    assert limit["sol_step_s"] == pytest.approx((conv_flop / 2.0 + fc_flop / 4.0) / 1e9)
    assert limit["library_step_s"]["numpy"] is None
    assert limit["library_step_s"]["torch"] == pytest.approx((conv_flop + fc_flop) / 1e9)


def test_a_steady_step_is_reported_as_a_fraction_of_the_limit_and_of_its_own_kernels():
    limit = {"sol_step_s": 0.002, "library_step_s": {"torch": 0.004, "tensorflow": 0.003}}
    r = sol.against(limit, "torch", steady_step_s=0.008)
    assert r["fraction_of_speed_of_light"] == pytest.approx(0.25)
    assert r["framework_sol_step_s"] == 0.004
    assert r["fraction_of_framework_sol"] == pytest.approx(0.5)
    assert r["above_speed_of_light"] is False
    assert sol.against(limit, "torch", steady_step_s=0.0015)["above_speed_of_light"] is True
    assert sol.against({"sol_step_s": None}, "torch", 0.008)["fraction_of_speed_of_light"] is None


def test_the_limit_is_measured_once_per_machine_cores_model_and_batch_size(tmp_path):
    calls = []
    probe = _fake_probe(calls, dict.fromkeys(sol.peak.LIBRARIES, 1.0))
    kw = {"cache_dir": tmp_path, "run_probe": probe}
    products = models.get("mlp").flop_products(**MLP)
    first = sol.speed_of_light("Test CPU", 2, "mlp", products, 128, **kw)
    n = len(calls)
    assert first["cached"] is False and n == len(sol.peak.LIBRARIES) and first["sol_step_s"] > 0
    again = sol.speed_of_light("Test CPU", 2, "mlp", products, 128, **kw)
    assert again["cached"] is True and len(calls) == n
    assert again["sol_step_s"] == first["sol_step_s"]
    sol.speed_of_light("Test CPU", 2, "mlp", products, 64, **kw)  # another batch: measured
    sol.speed_of_light("Test CPU", 1, "mlp", products, 128, **kw)  # other cores: measured
    assert len(calls) == 3 * n


def test_the_report_and_terminal_show_each_frameworks_fraction_of_the_speed_of_light(tmp_path):
    from analysis.compute import pipeline
    from analysis.load.table import runs_table
    from analysis.render import report, terminal

    from .test_analysis_fakes import record, write

    limit = {"sol_step_s": 0.002, "library_step_s": {"torch": 0.004, "tensorflow": 0.0025},
             "kernels": [{"best_library": "tensorflow", "count": 8}]}  # fmt: skip
    for backend, step in (("torch", 0.008), ("tensorflow", 0.0016)):
        rec = record(backend, 2, [1.0], steady_step=step)
        rec["speed_of_light"] = sol.against(limit, backend, step)
        write(tmp_path / "runs", f"mlp_{backend}", rec)
    an = pipeline.analyze(runs_table([tmp_path / "runs"]), pipeline.Options())
    text = terminal.render(an)
    assert "mlp cpu2 torch: limit 2.00 ms/step, steady 8.00 ms: 25% of the speed of light" in text
    assert "25% of the speed of light\n" in text  # torch: below its limit, no flag
    # a step below its lower bound: the limit was measured under load, and the page says so
    assert (
        "mlp cpu2 tensorflow: limit 2.00 ms/step, steady 1.60 ms: 125% of the speed of "
        "light  ! faster than its limit" in text
    )
    assert "measured under load" in text
    html = report.write(an, tmp_path / "out").read_text()
    assert 'id="speed-of-light"' in html and "fraction of speed of light" in html
    assert "A steady step ran faster than its speed of light" in html


def test_a_run_reports_its_steady_step_against_the_cached_limit(tmp_path, compose):
    from twinbench.machine import environment

    from .conftest import read_result, run_cli

    cache = tmp_path / "cache"
    products = _products("mlp", compose)
    probe = _fake_probe([], dict.fromkeys(sol.peak.LIBRARIES, 50.0))
    limit = sol.speed_of_light(
        environment.describe()["fingerprint"], 1, "mlp", products, 128, cache_dir=cache,
        run_probe=probe,
    )  # fmt: skip
    run_dir = tmp_path / "run"
    proc = run_cli(
        "cpus=1", "epochs=1", "max_steps=3", "measure.peak_probe=false",
        "measure.warmup_steps=1",  # 2 steady steps of 3 (the default warm-up leaves none)
        "measure.speed_of_light=true", f"measure.peak_cache_dir={cache}",
        f"hydra.run.dir={run_dir}",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = read_result(run_dir)
    s = r["speed_of_light"]
    assert s["cached"] is True and s["sol_step_s"] == pytest.approx(limit["sol_step_s"])
    steady = r["timing"]["steady_step_s"]["median"]
    assert s["steady_step_s"] == steady
    assert s["fraction_of_speed_of_light"] == pytest.approx(limit["sol_step_s"] / steady)


def test_a_limit_whose_probe_shared_its_cores_is_used_once_and_never_cached(tmp_path):
    calls = []
    quiet = _fake_probe(calls, dict.fromkeys(sol.peak.LIBRARIES, 1.0))

    def shared(lib, *args):  # torch's kernels timed beside other work: 60% of its cores
        found = quiet(lib, *args)
        share = 0.6 if lib == "torch" else 1.0
        return found | {"kernels": [k | {"core_share": share} for k in found["kernels"]]}

    products = models.get("mlp").flop_products(**MLP)
    first = sol.speed_of_light("Test CPU", 2, "mlp", products, 128, cache_dir=tmp_path,
                               run_probe=shared)  # fmt: skip
    assert first["shared_cores"] == {"torch": 0.6} and first["cache_file"] is None
    assert not list(tmp_path.glob("*.json"))
    again = sol.speed_of_light("Test CPU", 2, "mlp", products, 128, cache_dir=tmp_path,
                               run_probe=quiet)  # fmt: skip
    assert again["cached"] is False and again["shared_cores"] == {} and again["cache_file"]
