"""The 2017 benchmark's logs: recognised by layout, and its figures reproduced exactly.

Expected values are computed here from the raw CSVs with plain Python and the 2017 method as the
issue states it (total = sum of `elapsed`; relative = total / GPU total; cost per second = GPU
$0.745/h, 8 vCPUs $0.060/h x 1.0607, linear in vCPUs), never by calling analysis code.
"""

from __future__ import annotations

import csv
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest

from analysis.compute import pipeline
from analysis.load import legacy
from analysis.load.table import runs_table
from twinbench.paths import REPO_ROOT

# Three workloads' logs ship with the tests (tests/data/2017-keras-cpu-gpu/README.md says whose
# and under which licence); TWINBENCH_LEGACY_LOGS points at another copy, e.g. all seven.
REFERENCE = Path(
    os.environ.get("TWINBENCH_LEGACY_LOGS", Path(__file__).parent / "data" / "2017-keras-cpu-gpu")
)
needs_reference = pytest.mark.skipif(
    not (REFERENCE / "logs").is_dir(),
    reason=f"the 2017 reference logs are not at {REFERENCE} (set TWINBENCH_LEGACY_LOGS)",
)
LABELS = ["gpu", "cpu64pip", "cpu64cmp", "cpu32pip", "cpu32cmp", "cpu16pip", "cpu16cmp",
          "cpu8pip", "cpu8cmp"]  # fmt: skip
GPU_PER_S = 0.745 / 3600
CPU8_PER_S = 0.060 * 1.0607 / 3600


def expected(logs: Path) -> dict[tuple[str, str], dict[str, float]]:
    """(test, label) -> the 2017 notebook's total_time, total_cost and their norms."""

    def total(path: Path) -> float:
        with open(path, newline="") as f:
            return math.fsum(float(row["elapsed"]) for row in csv.DictReader(f))

    out = {}
    for gpu_log in sorted((logs / "gpu").glob("*_tensorflow.csv")):
        test = gpu_log.name.removesuffix("_tensorflow.csv")
        gpu_time = total(gpu_log)
        gpu_cost = gpu_time * GPU_PER_S
        out[(test, "gpu")] = {"total_time": gpu_time, "total_cost": gpu_cost,
                              "total_time_norm": 1.0, "total_cost_norm": 1.0}  # fmt: skip
        for folder, short in (("cpu-pip", "pip"), ("cpu-compiled", "cmp")):
            for vcpus in (8, 16, 32, 64):
                log = logs / folder / f"cpu{vcpus}" / gpu_log.name
                if not log.exists():
                    continue
                t = total(log)
                cost = t * (CPU8_PER_S * (vcpus // 8))
                out[(test, f"cpu{vcpus}{short}")] = {
                    "total_time": t,
                    "total_cost": cost,
                    "total_time_norm": t / gpu_time,
                    "total_cost_norm": cost / gpu_cost,
                }
    return out


def run_analysis(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "analysis", *args],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=300,
    )


def read_legacy_csv(out: Path) -> dict[tuple[str, str], dict[str, float]]:
    with open(out / "report_files" / "tables" / "legacy_2017.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    return {
        (r["legacy_test"], r["label"]): {
            k: float(r[k])
            for k in ("total_time", "total_cost", "total_time_norm", "total_cost_norm")
        }
        for r in rows
    }


@needs_reference
def test_the_2017_figures_are_reproduced_exactly_from_the_reference_logs(tmp_path):
    proc = run_analysis(str(REFERENCE), "--out", str(tmp_path))
    assert proc.returncode == 0, proc.stderr
    got = read_legacy_csv(tmp_path)
    want = expected(REFERENCE / "logs")
    assert len(want) == 27  # 3 workloads x 9 platforms
    assert got.keys() == want.keys()
    for key, values in want.items():
        # Exact equality: the CSV carries every digit, and the arithmetic is the 2017 one.
        assert got[key] == values, key
    # Spot values a reader can check against the 2017 post: MLP on 8 pip vCPUs took 2.13x the
    # GPU's time at 0.18x its cost.
    assert round(got[("mnist_mlp", "cpu8pip")]["total_time_norm"], 2) == 2.13
    assert round(got[("mnist_mlp", "cpu8pip")]["total_cost_norm"], 2) == 0.18


@needs_reference
def test_the_2017_layout_is_recognised_from_the_study_folder_or_its_logs_folder():
    assert legacy.find_root(REFERENCE) == REFERENCE / "logs"
    assert legacy.find_root(REFERENCE / "logs") == REFERENCE / "logs"
    assert legacy.find_root(REFERENCE / "logs" / "gpu") is None
    an = pipeline.analyze(runs_table([REFERENCE / "logs"]), pipeline.Options())
    assert an.baselines["2017 logs"].label == "gpu"
    for workload in ("mlp", "cnn", "cifar10_cnn"):
        rel = an.relative[an.relative["workload"] == workload]
        assert list(rel["config_label"]) == LABELS  # the 2017 charts' order


def _log(path: Path, elapsed: list[float]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = ["epoch,elapsed,loss,acc,val_loss,val_acc"]
    lines += [f"{i},{t!r},0.5,0.9,0.4,0.92" for i, t in enumerate(elapsed)]
    path.write_text("\r\n".join(lines) + "\r\n")  # CRLF, as the 2017 logs were written


def test_a_hand_made_2017_folder_gives_the_hand_computed_ratios(tmp_path):
    logs = tmp_path / "logs"
    _log(logs / "gpu" / "mnist_mlp_tensorflow.csv", [1.5, 0.5])  # total 2
    _log(logs / "cpu-pip" / "cpu8" / "mnist_mlp_tensorflow.csv", [3.0, 3.0])  # total 6
    _log(logs / "cpu-compiled" / "cpu32" / "mnist_mlp_tensorflow.csv", [1.0, 2.0])  # total 3
    out = tmp_path / "report"
    proc = run_analysis(str(logs), "--out", str(out))
    assert proc.returncode == 0, proc.stderr
    got = read_legacy_csv(out)
    gpu_cost = 2.0 * 0.745 / 3600
    assert got[("mnist_mlp", "cpu8pip")]["total_time_norm"] == 3.0
    assert got[("mnist_mlp", "cpu32cmp")]["total_time_norm"] == 1.5
    assert got[("mnist_mlp", "cpu8pip")]["total_cost_norm"] == pytest.approx(
        6.0 * 0.060 * 1.0607 / 3600 / gpu_cost, rel=1e-15
    )
    assert got[("mnist_mlp", "cpu32cmp")]["total_cost_norm"] == pytest.approx(
        3.0 * 4 * 0.060 * 1.0607 / 3600 / gpu_cost, rel=1e-15
    )
    with open(out / "report_files" / "tables" / "runs.csv", newline="") as f:
        runs = {r["config_label"]: r for r in csv.DictReader(f)}
    assert runs["gpu"]["device"] == "cuda" and runs["cpu32cmp"]["cpus"] == "32"
    assert runs["cpu8pip"]["model"] == "mlp" and runs["cpu8pip"]["backend"] == "tensorflow"
