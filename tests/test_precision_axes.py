"""precision=float32|bfloat16 and exec=eager|compiled: refused in one line where the machine
cannot honour them, mapped onto every backend's own switches, read back into the record, and
turned into the report's matrix with its break-even step count.

One shared sweep (two tiny bfloat16 workers, eager) stands for training; everything else is
plain functions. The compiled path is not trained here: torch.compile alone costs about a
minute on two cores (docs/findings/2026-12-01-precision-and-exec.md measures it)."""

from __future__ import annotations

import dataclasses
import json
import math
import subprocess
import sys
from pathlib import Path

import pandas as pd
import pytest
import yaml

from analysis.compute import exec_matrix
from analysis.load import axes
from frameworks import registry, settings
from frameworks.precision_check import precision_block
from twinbench.config import precision
from twinbench.config.choices import ConfigError
from twinbench.config.spec import build_spec
from twinbench.machine import environment
from twinbench.measure import bf16_evidence, peak
from twinbench.paths import REPO_ROOT
from twinbench.result import results

from .conftest import run_cli

HAS_BF16 = bool(precision.bf16_units(environment.cpu_flags()))


# ---------------------------------------------------------------- bad input, before training


def test_float16_on_a_cpu_is_one_line_and_nothing_is_written(tmp_path):
    proc = run_cli("precision=float16", f"hydra.run.dir={tmp_path / 'run'}")
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0, proc.stderr
    assert "precision=float16" in proc.stderr and "bfloat16 or float32" in proc.stderr
    assert not (tmp_path / "run").exists()


def test_bf16_without_bf16_units_is_refused_unless_allowed_explicitly():
    config = {"precision": "bfloat16"}
    with pytest.raises(ConfigError, match="allow_emulated_bf16=true"):
        precision.check_hardware(config, "cpu", {"avx2", "fma"})
    precision.check_hardware({**config, "allow_emulated_bf16": True}, "cpu", {"avx2"})
    precision.check_hardware(config, "cpu", {"avx2", "avx512_bf16"})  # BF16 units: runs
    precision.check_hardware({"precision": "float32"}, "cpu", set())


def test_this_machine_refuses_bf16_exactly_when_it_lacks_bf16_units(compose):
    config = compose("precision=bfloat16", "cpus=1")
    if HAS_BF16:
        assert build_spec(config).precision == "bfloat16"
    else:
        with pytest.raises(ConfigError, match="no bfloat16 units"):
            build_spec(config)
    assert build_spec({**config, "allow_emulated_bf16": True}).precision == "bfloat16"


def test_unknown_exec_mode_is_refused(compose):
    with pytest.raises(ConfigError, match="choose one of: null, eager, compiled"):
        build_spec({**compose("cpus=1"), "exec": "jit"})


RECURRENT = sorted(
    p.stem
    for p in (REPO_ROOT / "conf" / "model").glob("*.yaml")
    if "recurrent_activation" in ((yaml.safe_load(p.read_text()) or {}).get("arch") or {})
)
NO_BF16_UNITS = {"avx", "avx2", "fma", "f16c"}  # this Zen 3: bfloat16 converted around float32


def test_the_recurrent_models_are_the_three_lstms():
    assert RECURRENT == ["bilstm", "charlstm", "textgen"]


@pytest.mark.parametrize("model", RECURRENT)
def test_torch_bf16_lstm_in_onednn_without_bf16_units_is_refused_naming_mkldnn_false(
    monkeypatch, compose, model
):
    """oneDNN has no bfloat16 LSTM there: the run would fail in its first forward pass."""
    monkeypatch.setattr(environment, "cpu_flags", lambda: NO_BF16_UNITS)
    config = compose(
        "backend=torch",
        f"model={model}",
        "precision=bfloat16",
        "allow_emulated_bf16=true",
        "cpus=1",
    )
    for exec_mode in (None, "eager", "compiled"):
        with pytest.raises(ConfigError, match=r"oneDNN's LSTM.*add backend\.mkldnn=false") as e:
            build_spec({**config, "exec": exec_mode})
        assert "\n" not in str(e.value) and model in str(e.value)


@pytest.mark.parametrize(
    ("overrides", "flags"),
    [
        (("backend=torch", "model=bilstm", "backend.mkldnn=false"), NO_BF16_UNITS),  # ATen's LSTM
        (("backend=torch", "model=bilstm"), NO_BF16_UNITS | {"avx512_bf16"}),  # oneDNN has bf16
        (("backend=torch", "model=gpt"), NO_BF16_UNITS),  # no LSTM
        (("backend=keras_torch", "model=bilstm"), NO_BF16_UNITS),  # Keras' own LSTM, ran today
        (("backend=tensorflow", "model=charlstm"), NO_BF16_UNITS),
    ],
)
def test_the_other_bf16_combinations_are_not_refused(monkeypatch, compose, overrides, flags):
    monkeypatch.setattr(environment, "cpu_flags", lambda: flags)
    config = compose(*overrides, "precision=bfloat16", "allow_emulated_bf16=true", "cpus=1")
    assert build_spec(config).precision == "bfloat16"


def test_torch_lstm_in_float32_is_not_refused(monkeypatch, compose):
    monkeypatch.setattr(environment, "cpu_flags", lambda: NO_BF16_UNITS)
    for exec_mode in ("eager", "compiled"):
        assert build_spec(compose("backend=torch", "model=bilstm", "cpus=1", f"exec={exec_mode}"))


@pytest.mark.skipif(HAS_BF16, reason="this CPU has bfloat16 units: oneDNN has a bf16 LSTM")
def test_torch_bf16_bilstm_here_is_one_line_and_nothing_is_written(tmp_path):
    run = tmp_path / "run"
    proc = run_cli(
        "backend=torch",
        "model=bilstm",
        "precision=bfloat16",
        "allow_emulated_bf16=true",
        "cpus=1",
        f"hydra.run.dir={run}",
    )
    assert proc.returncode == 2
    assert proc.stderr.strip().count("\n") == 0, proc.stderr
    assert "backend.mkldnn=false" in proc.stderr
    assert not run.exists()


# ---------------------------------------------------------------- the mapping per backend


@pytest.mark.parametrize("backend", registry.names())
@pytest.mark.parametrize("mode", precision.EXEC_MODES)
def test_exec_sets_each_backends_own_switches_to_valid_values(compose, backend, mode):
    spec = build_spec(compose(f"backend={backend}", "cpus=1", f"exec={mode}"))
    switches = registry.spec(backend).exec_modes[mode]
    assert switches, f"{backend} maps no switch for exec={mode}"
    for key, value in switches.items():
        assert spec.backend_cfg[key] is value
    assert axes.exec_mode(spec.backend_cfg) == mode  # what the analysis reads back


def test_exec_null_leaves_the_finer_switches_alone(compose):
    config = compose("backend=torch", "cpus=1", "backend.compile=true")
    assert build_spec(config).backend_cfg["compile"] is True


def test_compiled_on_a_backend_that_cannot_compile_is_refused(monkeypatch, compose):
    broken = dataclasses.replace(registry.spec("torch"), compile_check=lambda: "no C++ compiler")
    monkeypatch.setitem(registry.BACKENDS, "torch", broken)
    with pytest.raises(settings.SettingError, match=r"exec=compiled cannot run.*no C\+\+"):
        settings.with_exec({"name": "torch", "compile": False}, "compiled")
    assert settings.with_exec({"name": "torch"}, "eager")["compile"] is False


def test_precision_is_part_of_the_run_identity_and_the_permission_is_not(compose):
    fp32 = compose("cpus=1")
    bf16 = {**fp32, "precision": "bfloat16"}
    assert results.run_key(fp32) != results.run_key(bf16)
    assert results.run_key(bf16) == results.run_key({**bf16, "allow_emulated_bf16": True})
    assert results.run_key(fp32) != results.run_key({**fp32, "exec": "compiled"})


# ---------------------------------------------------------------- the dtypes read back


def test_the_precision_check_fails_a_run_whose_dtypes_are_not_what_was_asked():
    ok = precision_block("bfloat16", {"bfloat16"}, {"float32"})
    assert ok == {"precision": "bfloat16", "compute_dtype": "bfloat16", "variable_dtype": "float32"}
    # Mutations: one layer left in float32; master weights stored in bfloat16.
    with pytest.raises(settings.SettingError, match="compute_dtype bfloat16,float32"):
        precision_block("bfloat16", {"bfloat16", "float32"}, {"float32"})
    with pytest.raises(settings.SettingError, match="variable_dtype bfloat16"):
        precision_block("bfloat16", {"bfloat16"}, {"bfloat16"})
    with pytest.raises(settings.SettingError):
        precision_block("float32", {"bfloat16"}, {"float32"})


# Over 60 s on the Zen 3 (about 72 s): two bfloat16 runs, each with its kernel probe process (a
# third framework start-up) that says which kernels ran; every bf16 test reads these two.
@pytest.fixture(scope="module")
def bf16_records(tmp_path_factory) -> dict[str, dict]:
    """Native torch and Keras on JAX, mixed bfloat16, eager, two steps each: one sweep."""
    out = tmp_path_factory.mktemp("bf16")
    proc = run_cli(
        "-m", "backend=torch,keras_jax", "model=mlp", "precision=bfloat16",
        "allow_emulated_bf16=true", "exec=eager", "cpus=1", "epochs=1", "max_steps=2",
        "measure.warmup_steps=1", "measure.peak_probe=false", "measure.kernel_probe=true",
        "quiet=true",
        f"hydra.sweep.dir={out}", timeout=900,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    found = [json.loads(p.read_text()) for p in Path(out).rglob("result.json")]
    return {r["backend"]: r for r in found} | {"sweep_dir": out}


@pytest.mark.parametrize("backend", ["torch", "keras_jax"])
def test_a_bf16_run_computes_in_bf16_and_keeps_float32_master_weights(bf16_records, backend):
    record = bf16_records[backend]
    assert record["status"] == "ok", record.get("error")
    assert record["settings"]["precision"] == {
        "precision": "bfloat16",
        "compute_dtype": "bfloat16",
        "variable_dtype": "float32",
    }
    assert math.isfinite(record["history"]["loss"][-1])


@pytest.mark.parametrize("backend", ["torch", "keras_jax"])
def test_the_runs_table_flags_bf16_run_without_bf16_units(bf16_records, backend):
    row = axes.columns(bf16_records[backend])
    assert row["precision"] == "bfloat16" and row["exec_mode"] == "eager"
    assert row["bf16_units"] is HAS_BF16  # False here: flagged as emulated


@pytest.mark.parametrize("backend", ["torch", "keras_jax"])
def test_the_kernel_probe_says_whether_a_bf16_runs_products_used_bf16_units(bf16_records, backend):
    probed = bf16_records[backend]["kernels"]
    # the probe's process held the run's runtime alone (no TensorFlow beside Keras on JAX)
    assert probed["runtimes_in_process"] == [registry.spec(backend).runtime]
    assert probed["bf16"]["precision"] == "bfloat16"
    assert probed["bf16"]["bf16_units_ran"] is (probed["bf16"]["flag"] is None)
    if not HAS_BF16:  # no bfloat16 instructions here: no kernel can have used them
        assert not probed["bf16"]["bf16_units_ran"]
        assert "FLAG: bfloat16 run without bfloat16 units" in probed["summary"]


def test_bf16_evidence_reads_the_isa_of_each_product_kernel():
    amx = {"matmul brg_matmul:avx512_core_amx": 3, "reorder jit:uni": 2}
    native = bf16_evidence.verdict("bfloat16", amx, {})
    assert native["bf16_units_ran"] and native["flag"] is None
    assert list(native["per_op"]) == ["matmul"]  # reorders are not products
    # oneDNN 3.x names its AMX kernels by AVX10 (an Intel host with AMX, 2026-12-07).
    for op, seen in (("matmul", "brg_matmul:avx10_1_512_amx"),
                     ("convolution", "brg_conv_fwd:avx10_1_512_amx")):  # fmt: skip
        assert bf16_evidence.verdict("bfloat16", {f"{op} {seen}": 2}, {})["bf16_units_ran"]
    # Mutation: the same matmul on a plain AVX-512 kernel is flagged as converted.
    plain = bf16_evidence.verdict("bfloat16", {"matmul brg_matmul:avx512_core": 3}, {})
    assert "converted around float32" in plain["flag"]
    # Mutation: an MKL SGEMM in a bfloat16 run is a fall-back to float32, named as such.
    fell = bf16_evidence.verdict("bfloat16", {}, {"SGEMM": 4})
    assert "fell back to float32 (MKL SGEMM x4)" in fell["flag"]
    assert bf16_evidence.verdict("float32", {}, {"SGEMM": 4})["flag"] is None


def test_the_report_shows_the_matrix_and_flags_emulated_bf16(bf16_records, tmp_path):
    report = tmp_path / "report"
    proc = subprocess.run(
        [sys.executable, "-m", "analysis", str(bf16_records["sweep_dir"]), "--out", str(report)],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    html = (report / "report.html").read_text()
    assert 'id="precision-exec"' in html
    assert ("Emulated bfloat16" in html) is not HAS_BF16
    table = pd.read_csv(next(report.rglob("precision_exec*.csv")))
    assert set(table["backend"]) == {"torch", "keras_jax"}
    assert set(table["precision"]) == {"bfloat16"} and set(table["exec_mode"]) == {"eager"}


# ---------------------------------------------------------------- the peak per precision


def test_a_bf16_peak_times_bf16_gemms_apart_from_the_float32_peak(tmp_path, monkeypatch):
    asked = []

    def run_probe(lib, size, repeats, min_repeat_s, cores, precision="float32"):
        asked.append((lib, precision))
        return {"library": lib, "kernel": lib, "gflops": 10.0 if precision == "bfloat16" else 20.0}

    monkeypatch.setattr(peak, "read_clock_mhz", lambda: (2600.0, "test"))
    kw = {"cache_dir": tmp_path, "run_probe": run_probe}
    fp32 = peak.machine_peak("Test CPU x2", 2, **kw)
    bf16 = peak.machine_peak("Test CPU x2", 2, precision="bfloat16", **kw)
    assert fp32["machine_peak_gflops"] == 20.0 and bf16["machine_peak_gflops"] == 10.0
    assert fp32["cache_file"] != bf16["cache_file"]  # neither cache answers for the other
    assert ("numpy", "bfloat16") not in asked  # numpy has no bfloat16 GEMM
    assert {lib for lib, p in asked if p == "bfloat16"} == set(peak.LIBRARIES) - {"numpy"}


def _peak(rates: dict[str, float]) -> dict:
    return {"libraries": {lib: {"gflops": g} for lib, g in rates.items()}}


def test_a_bf16_run_on_cores_whose_bf16_gemm_is_slower_is_flagged_with_both_rates():
    """The Intel host of 2026-12-07: avx512_bf16 without AMX, every bfloat16 GEMM at 0.52x."""
    slow = bf16_evidence.gemm_flag(_peak({"torch": 87.0}), _peak({"torch": 166.0}), "torch")
    assert slow is not None and "87 GFLOP/s in bfloat16 and 166 in float32" in slow
    assert "(0.52x)" in slow and "precision=float32" in slow
    # The AMD AVX-512 host's bfloat16 GEMM ran 1.7-3x its float32: nothing to flag
    fast = _peak({"torch": 300.0})
    assert bf16_evidence.gemm_flag(fast, _peak({"torch": 100.0}), "torch") is None
    # Another library's rates say nothing of this run's, and a missing peak says nothing at all
    assert bf16_evidence.gemm_flag(_peak({"jax": 50.0}), _peak({"jax": 100.0}), "torch") is None
    assert bf16_evidence.gemm_flag(None, _peak({"torch": 166.0}), "torch") is None


def test_the_worker_sets_a_bf16_runs_gemm_beside_its_float32_gemm(compose, monkeypatch):
    """A bfloat16 run also reads the float32 peak of its cores (cached, or probed once) and
    flags itself where its framework's bfloat16 GEMM is the slower."""
    from twinbench.worker import assemble, phases

    asked = []

    def machine_peak_record(spec, say=None, precision=None):
        asked.append(precision or spec.precision)
        rate = 87.0 if (precision or spec.precision) == "bfloat16" else 166.0
        return _peak({"torch": rate})

    monkeypatch.setattr(phases, "machine_peak_record", machine_peak_record)
    bf16 = ("precision=bfloat16", "allow_emulated_bf16=true")  # the permission: a Zen 3 has none
    spec = build_spec(compose("backend=torch", "model=mlp", "cpus=1", *bf16))
    probes = phases.run_probes(spec, "test", {"arch": {}})
    assert asked == ["bfloat16", "float32"]
    flags = assemble.run_flags(spec, None, None, (None, {}), None, probes)
    assert [f for f in flags if f.startswith("bfloat16 GEMM slower here")]
    fp32 = build_spec(compose("backend=torch", "model=mlp", "cpus=1"))
    asked.clear()
    assert phases.run_probes(fp32, "test", {"arch": {}}).machine_float32 is None
    assert asked == ["float32"]  # a float32 run probes its own precision only


def test_the_bf16_gemm_probe_really_multiplies_bfloat16_in_its_own_process():
    r = peak._run_probe("jax", 64, 2, 0.001, 1, precision="bfloat16")
    assert r["precision"] == "bfloat16" and "bfloat16" in r["kernel"], r
    assert r["gflops"] > 0


# ---------------------------------------------------------------- the matrix and break-even


def test_break_even_is_compile_cost_over_the_per_step_gain():
    assert exec_matrix.break_even(10.0, 1.0, 0.01, 0.04) == pytest.approx(300.0)
    assert exec_matrix.break_even(10.0, 1.0, 0.05, 0.04) == math.inf  # compiled slower: never
    assert exec_matrix.break_even(0.5, 1.0, 0.01, 0.04) == 0.0  # cheaper from the start


def _run(backend, prec, mode, steady, overhead, loss):
    return {
        "status": "ok", "workload": "mlp", "backend": backend, "precision": prec,
        "exec_mode": mode, "steady_step_s": steady,
        "startup_first_step_over_steady_s": overhead, "final_loss": loss,
        "bf16_units": False if prec == "bfloat16" else None, "compiled_graphs": None,
    }  # fmt: skip


def test_the_matrix_gives_each_compiled_cell_its_break_even_with_an_interval():
    runs = pd.DataFrame(
        [_run("torch", "float32", "eager", s, 0.1, 2.0) for s in (0.040, 0.041, 0.039)]
        + [_run("torch", "float32", "compiled", s, 30.1, 2.0) for s in (0.010, 0.011, 0.009)]
        + [_run("torch", "bfloat16", "eager", 0.4, 0.1, 2.1)]
    )
    table = exec_matrix.matrix(runs).set_index(["precision", "exec_mode"])
    compiled = table.loc[("float32", "compiled")]
    assert compiled["break_even_steps"] == pytest.approx(30.0 / 0.030)
    assert compiled["break_even_low"] < compiled["break_even_steps"] < compiled["break_even_high"]
    assert math.isnan(table.loc[("float32", "eager"), "break_even_steps"])
    assert table.loc[("bfloat16", "eager"), "loss_minus_fp32"] == pytest.approx(0.1)
    assert table.loc[("bfloat16", "eager"), "bf16_units"] is False


def test_a_bf16_cell_sets_its_step_speed_up_beside_its_own_gemms_speed_up():
    def run(prec, steady, gflops, size=2048):
        row = _run("torch", prec, "eager", steady, 0.1, 2.0)
        return row | {"framework_gemm_gflops": gflops, "peak_probe_size": size}

    runs = pd.DataFrame(
        [run("float32", s, 200.0) for s in (0.040, 0.041)]
        + [run("bfloat16", s, 420.0) for s in (0.030, 0.031)]
    )
    table = exec_matrix.matrix(runs).set_index("precision")
    assert table.loc["bfloat16", "bf16_step_speedup"] == pytest.approx(0.0405 / 0.0305)
    assert table.loc["bfloat16", "bf16_gemm_speedup"] == pytest.approx(2.1)
    assert math.isnan(table.loc["float32", "bf16_step_speedup"])
    # Mutation: a bfloat16 GEMM probed at another size is no ratio (512 against 2048).
    runs.loc[runs["precision"] == "bfloat16", "peak_probe_size"] = 512
    table = exec_matrix.matrix(runs).set_index("precision")
    assert math.isnan(table.loc["bfloat16", "bf16_gemm_speedup"])
    assert table.loc["bfloat16", "bf16_step_speedup"] > 1


def test_runs_that_differ_only_in_exec_or_precision_are_different_configurations():
    from analysis.load import table

    base = {
        "source": "twinbench", "machine": "m", "backend": "torch", "model": "mlp", "cpus": 2,
        "device": "cpu", "settings": "{}", "status": "ok", "epochs": 1, "batch_size": 128,
    }  # fmt: skip
    rows = [
        {**base, "exec_mode": "eager", "precision": "float32"},
        {**base, "exec_mode": "compiled", "precision": "float32"},
        {**base, "exec_mode": "compiled", "precision": "bfloat16"},
    ]
    labels = list(table.frame(rows)["config_label"])
    assert labels == ["torch cpu2 eager", "torch cpu2 compiled", "torch cpu2 compiled bf16"]
