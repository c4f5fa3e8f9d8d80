"""report.html: every section, embedded figures, CSV tables; the sweep-end hook; and a real
browser (headless Chromium) loading the page offline with every image decoded."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import warnings
from pathlib import Path

import pandas as pd
import pytest

from analysis.__main__ import main
from analysis.load.table import load_results
from analysis.render import report
from tests import certificate_fakes
from twinbench.cli.sweep_end import comparison_table
from twinbench.parity import certificates

from . import test_analysis_fakes as fakes

SECTIONS = ["relative", "legacy", "framework", "hardware", "software", "inside", "peak",
            "startup", "parity", "environment", "failed", "runs"]  # fmt: skip
FLOPS = {"per_step": 2e8, "achieved_gflops": 20.0, "peak_gflops": 80.0, "fraction_of_peak": 0.25}


def add_inside_detail(result: Path) -> None:
    """What a current worker adds: steps.json beside the record, resources, start-up phases."""
    rec = json.loads(result.read_text())
    cpus = rec["cpus"]
    per_epoch = [[(4_000_000 + 10_000 * i) // cpus for i in range(20)] for _ in range(2)]
    (result.parent / "steps.json").write_text(json.dumps({"unit": "ns", "per_epoch": per_epoch}))
    rec["steps_file"] = "steps.json"
    rec["resources"] = {"peak_rss_mib": 512.0 + cpus, "cpu_time_training_s": 3.0 * cpus,
                        "busy_cores_training": 0.9 * cpus}  # fmt: skip
    rec["startup"].update(process_start_s=0.5, data_s=0.75, build_s=0.125)
    result.write_text(json.dumps(rec))


def make_results(root: Path) -> tuple[Path, Path, Path]:
    """Two workloads x two frameworks x two core counts x two repeats, a settings sweep, a
    failed run, a parity certificate, and a small folder of 2017-style logs."""
    sweep, parity, legacy = root / "sweep", root / "parity", root / "logs"
    for model, scale in (("mlp", 1.0), ("cnn", 4.0)):
        times = {
            ("torch", 1): [[1.0 * scale, 2.0 * scale], [1.25 * scale, 2.0 * scale]],
            ("torch", 2): [[0.5 * scale, 1.0 * scale], [0.75 * scale, 1.0 * scale]],
            ("tensorflow", 1): [[2.0 * scale, 4.0 * scale], [2.0 * scale, 4.5 * scale]],
            # a noisy pair of repeats: its interval is wider than 10% of the median
            ("tensorflow", 2): [[1.0 * scale, 2.0 * scale], [2.0 * scale, 3.0 * scale]],
        }
        paths = fakes.sweep(sweep, times, model=model, flops=FLOPS if model == "mlp" else None)
        if model == "mlp":
            for path in paths:
                add_inside_detail(path)
    fakes.write(sweep, "xla", fakes.record("tensorflow", 2, [0.75, 1.25], settings={"xla": True},
                                           opt="tuned"))  # fmt: skip
    fakes.write(sweep, "dead", fakes.failed("torch", 2, "worker exit code 1: boom", model="cnn"))
    parity.mkdir()
    # A complete certificate: the report judges its figures, so a partial one reads invalid.
    certificates.write_certificate(
        certificate_fakes.report("mlp", forward_max_abs_diff=4e-8), parity
    )
    for folder, elapsed in (("gpu", [1.0, 1.0]), ("cpu-pip/cpu8", [3.0, 3.0]),
                            ("cpu-compiled/cpu8", [2.0, 2.0])):  # fmt: skip
        path = legacy / folder / "mnist_mlp_tensorflow.csv"
        path.parent.mkdir(parents=True)
        rows = [f"{i},{t},0.5,0.9,0.4,0.9" for i, t in enumerate(elapsed)]
        path.write_text("epoch,elapsed,loss,acc,val_loss,val_acc\n" + "\n".join(rows) + "\n")
    return sweep, parity, legacy


@pytest.fixture(scope="module")
def full_report(tmp_path_factory) -> tuple[Path, str]:
    root = tmp_path_factory.mktemp("report")
    sweep, parity, legacy = make_results(root)
    out = root / "out"
    import contextlib
    import io

    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        assert main([str(sweep), str(legacy), "--out", str(out), "--parity-dir", str(parity)]) == 0
    return out, printed.getvalue()


def test_the_report_has_every_section_and_embeds_every_figure(full_report):
    out, _ = full_report
    page = (out / "report.html").read_text()
    for section in SECTIONS:
        assert f'id="{section}"' in page, section
    manifest = json.loads((out / "report_files" / "manifest.json").read_text())
    images = re.findall(r'<img src="data:image/png;base64,', page)
    assert len(images) == len(manifest["figures"]) >= 10
    names = {Path(f).name for f in manifest["figures"]}  # the per-run charts are among them
    assert {"inside_mlp.png", "wallclock_mlp.png", "startup.png"} <= names
    for figure in manifest["figures"]:
        assert (out / figure).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    for table in manifest["tables"]:
        assert (out / table).stat().st_size > 0
        assert f'href="{table}"' in page
    # Offline: nothing is fetched from anywhere (URLs appear only as text).
    assert not re.search(r'(src|href)="(https?:)?//', page)
    assert "<script" not in page and "<link" not in page


def test_the_report_shows_what_each_section_found(full_report):
    out, printed = full_report
    page = (out / "report.html").read_text()
    tables = out / "report_files" / "tables"
    # Flags, not hiding: the noisy tensorflow cpu2 rows are marked unstable.
    assert 'class="unstable"' in page and "unstable: interval" in page
    assert "worker exit code 1: boom" in page  # the failed run is shown
    assert "not measured" in page  # cnn has no flops
    assert "25.0%" in page  # mlp reached a quarter of peak
    assert "xla=on" in (tables / "software_effect.csv").read_text()
    parity = (tables / "parity.csv").read_text()
    assert "pass" in parity and "4e-08" in parity
    assert (tables / "legacy_2017.csv").exists() and (tables / "scaling_gap.csv").exists()
    inside = pd.read_csv(tables / "inside_runs.csv")
    run = inside[(inside["workload"] == "mlp") & (inside["config_label"] == "torch cpu1")]
    assert run["peak_rss_mib"].tolist() == [513.0, 513.0]
    # steady steps: the first 10 of the run and each epoch's first left out; 29 remain
    # (4.10..4.19 ms in epoch 1, 4.01..4.19 ms in epoch 2): median 4.12 ms
    assert run["median_step_ms"].tolist() == pytest.approx([4.12, 4.12])
    assert inside.loc[inside["workload"] == "cnn", "median_step_ms"].isna().all()  # no steps
    assert "time_to_target_s" not in inside  # no target configured
    assert "framework effect: torch / each other backend's training time" in printed
    assert "1 of 21 runs failed" in printed  # 16 + 1 settings variant + 1 failed + 3 from 2017


def test_the_sweep_end_hook_writes_the_report_or_says_why_not(tmp_path, capsys):
    fakes.sweep(tmp_path / "s", {("torch", 1): [[1.0]], ("tensorflow", 1): [[2.0]]})
    assert report.after_sweep(tmp_path / "s") == f"report: {tmp_path / 's' / 'report.html'}"
    assert (tmp_path / "s" / "report_files" / "tables" / "framework_effect.csv").exists()
    (tmp_path / "empty").mkdir()
    assert report.after_sweep(tmp_path / "empty").startswith("report not written: ")


def test_the_sweep_callback_prints_the_table_and_the_report(tmp_path, capsys):
    from omegaconf import OmegaConf

    from twinbench.cli.sweep_end import SweepSummary

    fakes.sweep(tmp_path, {("torch", 1): [[1.0], [1.5]], ("tensorflow", 1): [[2.0], [2.5]]})
    SweepSummary().on_multirun_end(OmegaConf.create({"hydra": {"sweep": {"dir": str(tmp_path)}}}))
    printed = capsys.readouterr().out
    # repeats are aggregated: medians 1.25 and 2.25
    assert "torch cpu1       2     1.25" in printed
    assert f"report: {tmp_path / 'report.html'}" in printed


def test_comparison_table_without_a_common_baseline_still_compares_frameworks(tmp_path):
    fakes.write(tmp_path, "a", fakes.record("torch", 1, [1.0], model="mlp"))
    fakes.write(tmp_path, "b", fakes.record("tensorflow", 1, [4.0], model="mlp"))
    fakes.write(tmp_path, "c", fakes.record("torch", 2, [1.0], model="cnn"))
    text = comparison_table(load_results([tmp_path]))
    assert "0.25x" in text and "no relative table: no common baseline" in text


# ---------------------------------------------------------------- a real browser

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHECK = """<script>
window.addEventListener("load", function () {
  var imgs = document.images, broken = 0;
  for (var i = 0; i < imgs.length; i++) {
    if (!(imgs[i].complete && imgs[i].naturalWidth > 0)) broken++;
  }
  var p = document.createElement("p");
  p.id = "img-check";
  p.textContent = "images=" + imgs.length + " broken=" + broken;
  document.body.appendChild(p);
});
</script>"""


def chromium(page: Path, profile: Path, *extra: str) -> subprocess.CompletedProcess:
    """Headless Chromium with networking off: what loads, loads from the file alone."""
    return subprocess.run(
        [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
         "--no-first-run", "--disable-background-networking", "--disable-component-update",
         "--disable-sync", f"--user-data-dir={profile}", "--virtual-time-budget=5000",
         *extra, page.as_uri()],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip


def image_check(page: Path, profile: Path) -> tuple[int, int]:
    proc = chromium(page, profile, "--dump-dom")
    found = re.search(r'id="img-check">images=(\d+) broken=(\d+)<', proc.stdout)
    assert found, proc.stdout[-2000:] + proc.stderr[-2000:]
    return int(found.group(1)), int(found.group(2))


@pytest.mark.skipif(CHROMIUM is None, reason="chromium is not installed (apt-get install chromium)")
def test_the_report_renders_in_headless_chromium_with_every_image_loaded(full_report, tmp_path):
    out, _ = full_report
    manifest = json.loads((out / "report_files" / "manifest.json").read_text())
    checked = out / "report_checked.html"  # a copy with the checking script, beside the report
    checked.write_text((out / "report.html").read_text().replace("</body>", CHECK + "</body>"))
    images, broken = image_check(checked, tmp_path / "profile")
    assert (images, broken) == (len(manifest["figures"]), 0)
    # The check itself can fail: a page with a missing image is reported as broken.
    bad = tmp_path / "bad.html"
    bad.write_text(f'<html><body><img src="missing.png">{CHECK}</body></html>')
    assert image_check(bad, tmp_path / "profile") == (1, 1)
    shot = out / "report.png"
    proc = chromium(out / "report.html", tmp_path / "profile", f"--screenshot={shot}",
                    "--window-size=1280,4000")  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 50_000


def test_a_report_over_a_single_run_draws_every_figure_without_a_warning(tmp_path, capsys):
    """One configuration is what a user's first `python -m analysis results/runs` reads: its
    budget chart once had its legend over the bar and title, and matplotlib warned that the
    layout collapsed."""
    for path in fakes.sweep(tmp_path / "s", {("torch", 1): [[1.0, 2.0]]}):
        add_inside_detail(path)
        rec = json.loads(path.read_text())
        parts = {"first_step": 0.05, "warmup": 0.25, "steady": 2.25, "steady_spread": 0.25,
                 "remainder": 0.0, "validation": 0.2}  # fmt: skip
        rec["budget"] = {"parts_s": parts}
        path.write_text(json.dumps(rec))
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main([str(tmp_path / "s"), "--out", str(tmp_path / "out")]) == 0
    names = {Path(f).name for f in json.loads(
        (tmp_path / "out" / "report_files" / "manifest.json").read_text())["figures"]}  # fmt: skip
    assert "budget_mlp.png" in names
