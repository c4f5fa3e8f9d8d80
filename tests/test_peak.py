"""One machine peak: the best library's median GEMM rate, flagged above the ISA limit, cached
per machine and core count, and each framework's own GEMM reported beside it."""

from __future__ import annotations

import json
import os

import pytest

from twinbench.machine import environment
from twinbench.measure import peak

from .conftest import read_result, run_cli


def test_the_rate_is_the_median_of_the_timed_repeats_never_the_best():
    durations = iter([10, 10, 100, 50, 25, 400, 100])  # ns: 2 warm-up calls, then 5 repeats
    now = [0]

    def op():
        now[0] += next(durations)

    rate = peak.median_rate(op, flop=100.0, repeats=5, min_repeat_s=1e-8, clock=lambda: now[0])
    assert rate["inner"] == 1
    assert rate["samples_gflops"] == [1.0, 2.0, 4.0, 0.25, 1.0]
    assert rate["gflops"] == 1.0  # the best-of would say 4.0


def test_the_rate_carries_the_share_of_its_cores_nothing_else_used():
    now, cpu, busy = [0], [0], [0]

    def shared_op():  # 100 ns of wall on one core: the probe ran 50, another process 50
        now[0] += 100
        cpu[0] += 50
        busy[0] += 100

    clocks = {"clock": lambda: now[0], "cpu_clock": lambda: cpu[0], "busy_clock": lambda: busy[0]}
    rate = peak.median_rate(shared_op, 100.0, 3, 1e-8, cores=1, **clocks)
    assert rate["core_share"] == pytest.approx(0.5)

    def one_thread_on_two_cores():  # the probe's kernel uses one core of two; nobody else runs
        now[0] += 100
        cpu[0] += 100
        busy[0] += 100

    alone = peak.median_rate(one_thread_on_two_cores, 100.0, 3, 1e-8, cores=2, **clocks)
    assert alone["core_share"] == pytest.approx(1.0)  # not sharing: its own parallelism
    # where the kernel's table cannot be read, no share is claimed
    unread = peak.median_rate(shared_op, 100.0, 3, 1e-8, cores=1, **{**clocks,
                              "busy_clock": lambda: None})  # fmt: skip
    assert unread["core_share"] is None


def test_the_cores_busy_time_is_read_from_the_kernels_table(tmp_path):
    stat = tmp_path / "stat"
    stat.write_text(
        "cpu  30 0 30 500 5 0 0 0 0 0\n"
        "cpu0 10 1 10 250 5 1 1 2 0 0\n"  # busy: user nice system irq softirq steal = 25
        "cpu1 20 0 20 250 0 0 0 0 0 0\n"  # 40, on a core not asked for
    )
    tick = 1e9 / os.sysconf("SC_CLK_TCK")
    assert peak.cores_busy_ns({0}, stat) == round(25 * tick)
    assert peak.cores_busy_ns({0, 1}, stat) == round(65 * tick)
    assert peak.cores_busy_ns({0}, tmp_path / "missing") is None


def test_isa_limit_is_cores_times_clock_times_two_fma_units_of_the_widest_isa():
    assert peak.isa_limit(2, {"avx512f", "fma", "avx"}, 2500.0)["gflops"] == 2 * 2.5 * 64
    assert peak.isa_limit(4, {"fma", "avx"}, 3000.0)["gflops"] == 4 * 3.0 * 32
    assert peak.isa_limit(2, {"avx512f"}, None)["gflops"] is None


@pytest.fixture
def fake_probes(monkeypatch):
    """Probe results chosen here: numpy 100, torch 200, TensorFlow 460, JAX 300 GFLOP/s (one per
    library the registry's runtimes need, numpy's BLAS first)."""
    calls = []
    rates = {"numpy": 100.0, "torch": 200.0, "tensorflow": 460.0, "jax": 300.0}
    assert set(peak.LIBRARIES) == set(rates), "the fake covers every probed library"

    def run_probe(lib, size, repeats, min_repeat_s, cores):
        calls.append((lib, cores))
        return {"library": lib, "kernel": f"{lib} kernel", "gflops": rates[lib]}

    monkeypatch.setattr(peak, "read_clock_mhz", lambda: (2600.0, "test"))
    monkeypatch.setattr(peak, "_cpu_flags", lambda: {"avx512f"})
    return calls, run_probe


def test_the_machine_peak_is_the_best_library_and_is_measured_once_per_machine_and_cores(
    tmp_path, fake_probes
):
    calls, run_probe = fake_probes
    kw = {"cache_dir": tmp_path, "run_probe": run_probe}
    first = peak.machine_peak("Test CPU x8", 2, **kw)
    assert (first["machine_peak_gflops"], first["best_library"]) == (460.0, "tensorflow")
    n = len(peak.LIBRARIES)
    assert first["cached"] is False and len(calls) == n
    again = peak.machine_peak("Test CPU x8", 2, **kw)
    assert again["cached"] is True and len(calls) == n  # no new probe
    assert again["machine_peak_gflops"] == 460.0
    peak.machine_peak("Test CPU x8", 1, **kw)  # other core count: measured
    assert len(calls) == 2 * n
    # 460 on 2 cores at 2.6 GHz x 64 FLOP/cycle = 332.8: above what the hardware can do
    assert first["isa_limit"]["gflops"] == pytest.approx(332.8)
    assert first["exceeds_isa_limit"] is True


def test_a_measured_peak_says_which_library_it_is_probing_and_a_cached_one_is_silent(
    tmp_path, fake_probes
):
    _, run_probe = fake_probes
    said: list[str] = []
    peak.machine_peak("Test CPU x8", 2, cache_dir=tmp_path, run_probe=run_probe, say=said.append)
    n = len(peak.LIBRARIES)
    assert len(said) == n and said[0].endswith(f": numpy (1/{n})...")
    assert all("GEMM peak on 2 core(s)" in line for line in said)
    peak.machine_peak("Test CPU x8", 2, cache_dir=tmp_path, run_probe=run_probe, say=said.append)
    assert len(said) == n  # from the cache: nothing to wait for


def test_each_frameworks_gemm_beside_the_machine_peak_is_the_kernel_library_effect(
    tmp_path, fake_probes
):
    _, run_probe = fake_probes
    machine = peak.machine_peak("Test CPU x8", 2, cache_dir=tmp_path, run_probe=run_probe)
    torch = peak.framework_ceiling(machine, "torch", achieved=50.0)
    assert torch["kernel_library_effect"] == pytest.approx(200 / 460)
    assert torch["fraction_of_framework_gemm"] == pytest.approx(0.25)
    assert peak.framework_ceiling(machine, "tensorflow", 50.0)["kernel_library_effect"] == 1.0


def test_a_probe_that_shared_its_cores_serves_its_run_but_is_never_cached(tmp_path, fake_probes):
    # README command 1 on a machine with no cache: both workers of a resident pair start at
    # once, and the first probe ran beside its partner at half the rate (2026-12-06).
    _, run_probe = fake_probes

    def shared_numpy(lib, *args):
        return run_probe(lib, *args) | {"core_share": 0.5 if lib == "numpy" else 0.99}

    said: list[str] = []
    kw = {"cache_dir": tmp_path, "say": said.append}
    first = peak.machine_peak("Test CPU x8", 2, run_probe=shared_numpy, **kw)
    assert first["machine_peak_gflops"] == 460.0 and first["shared_cores"] == {"numpy": 0.5}
    assert first["cached"] is False and first["cache_file"] is None
    assert "shared its 2 core(s) with other work (numpy 50% of them)" in said[-1]
    assert not list(tmp_path.glob("*.json"))  # nothing a later run would read
    again = peak.machine_peak("Test CPU x8", 2, run_probe=run_probe, **kw)
    assert again["cached"] is False and again["shared_cores"] == {}  # measured again, quiet
    assert peak.machine_peak("Test CPU x8", 2, run_probe=run_probe, **kw)["cached"] is True
    # a share as low as the configured least is still cached
    low = peak.machine_peak("Test CPU x4", 2, run_probe=shared_numpy, min_share=0.5, **kw)
    assert low["cache_file"] is not None


def test_probes_take_turns_and_a_waiting_one_reads_what_the_first_measured(tmp_path):
    import threading

    inside, overlapped, calls = [0], [False], []

    def slow_probe(lib, *args):
        inside[0] += 1
        overlapped[0] |= inside[0] > 1
        threading.Event().wait(0.02)
        calls.append(lib)
        inside[0] -= 1
        return {"library": lib, "kernel": lib, "gflops": 1.0, "core_share": 1.0}

    def one():
        peak.machine_peak("Test CPU x8", 1, cache_dir=tmp_path, run_probe=slow_probe)

    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not overlapped[0]
    assert len(calls) == len(peak.LIBRARIES)  # the second found the first's peak in the cache


def test_a_real_probe_runs_in_its_own_process_and_reports_a_median():
    r = peak._run_probe("numpy", 128, 3, 0.001, 1)
    assert r["gflops"] > 0 and "numpy" in r["kernel"]
    assert sorted(r["samples_gflops"])[1] == r["gflops"]


def test_a_run_divides_by_the_cached_machine_peak_and_reports_its_own_gemm(tmp_path):
    fingerprint = environment.describe()["fingerprint"]
    cache = tmp_path / "cache"
    libs = list(peak.LIBRARIES)
    record = {
        "probe": {"version": peak.CACHE_VERSION, "size": 2048, "repeats": 7, "libraries": libs},
        "fingerprint": fingerprint,
        "cores": 1,
        "libraries": {
            lib: {"gflops": 3e3 if lib == "numpy" else 1e3, "kernel": lib} for lib in libs
        },
        "machine_peak_gflops": 3e3,
        "best_library": "numpy",
    }
    cache.mkdir()
    (peak._cache_file(cache, fingerprint, 1)).write_text(json.dumps(record))
    run_dir = tmp_path / "run"
    proc = run_cli(
        "cpus=1", "epochs=1", "max_steps=3", f"measure.peak_cache_dir={cache}",
        "measure.warmup_steps=1",  # 2 steady steps of 3 (the default warm-up leaves none)
        f"hydra.run.dir={run_dir}",
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-3000:]
    r = read_result(run_dir)
    assert r["machine_peak"]["cached"] is True
    f = r["flops"]
    assert f["peak_gflops"] == 3e3 and f["framework_gemm_gflops"] == 1e3
    assert f["fraction_of_peak"] == pytest.approx(f["achieved_gflops"] / 3e3)
    assert f["kernel_library_effect"] == pytest.approx(1 / 3)


def test_the_report_and_terminal_show_one_machine_peak_and_both_gemm_ceilings(
    tmp_path, fake_probes
):
    from analysis.compute import pipeline
    from analysis.load.table import runs_table
    from analysis.render import report, terminal

    from .test_analysis_fakes import record, write

    _, run_probe = fake_probes
    machine = peak.machine_peak("Test CPU x8", 2, cache_dir=tmp_path / "c", run_probe=run_probe)
    for backend in ("torch", "tensorflow"):
        rec = record(backend, 2, [1.0], steady_step=0.01)
        rec["machine_peak"] = machine
        rec["kernels"] = {"summary": f"{backend} kernels x3", "onednn": {"isa": "AVX-512"}}
        rec["flops"] = {"achieved_gflops": 50.0, "peak_gflops": 460.0} | peak.framework_ceiling(
            machine, backend, 50.0
        )
        write(tmp_path / "runs", f"mlp_{backend}", rec)
    an = pipeline.analyze(runs_table([tmp_path / "runs"]), pipeline.Options())
    text = terminal.render(an)
    assert (
        "machine peak cpus=2: 460 GFLOP/s (tensorflow); each library's GEMM: numpy 100 (22%), "
        "torch 200 (43%), tensorflow 460 (100%), jax 300 (65%)  ! above cores x ISA x 2600 MHz, "
        "the clock read (test): turbo above it, or a probe's timing wrong"
    ) in text
    html = report.write(an, tmp_path / "out").read_text()
    assert 'id="machine-peak"' in html and "kernel-library effect" in html
    assert 'id="kernels"' in html and "tensorflow kernels x3" in html
