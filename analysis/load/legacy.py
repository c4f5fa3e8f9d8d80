"""The 2017 Keras CPU-vs-GPU benchmark's per-epoch logs, loaded into the same table as twinbench.

Layout (minimaxir/deep-learning-cpu-gpu-benchmark, `logs/`):
    gpu/<test>_tensorflow.csv                          one Tesla K80
    cpu-pip/<cpu8|cpu16|cpu32|cpu64>/<test>_tensorflow.csv       TensorFlow from pip
    cpu-compiled/<cpu8|cpu16|cpu32|cpu64>/<test>_tensorflow.csv  compiled with AVX/FMA
Columns: epoch, elapsed (s, validation included), loss, acc, val_loss, val_acc.

Each file becomes one run. The 2017 analysis (an R notebook) summed `elapsed` per platform,
normalised by the GPU's total and priced runs per second; pricing.py and relative.py apply the
same arithmetic in the same order, so its ratios come out bit for bit.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from analysis.errors import AnalysisError
from analysis.load import backends
from analysis.load.records import canonical, settings_label, short_hash
from frameworks import registry

SOURCE = "2017 logs"
# The 2017 benchmark ran Keras 2 on TensorFlow only: its file names and this backend say so.
BACKEND = registry.LEGACY_2017
SUFFIX = f"_{BACKEND}.csv"
BUILDS = {"cpu-pip": ("pip", "pip"), "cpu-compiled": ("compiled", "cmp")}
PLATFORMS = ("cpu8", "cpu16", "cpu32", "cpu64")
# The 2017 charts' order: GPU first, then from the most vCPUs down, pip before compiled.
LABELS = (
    "gpu",
    "cpu64pip",
    "cpu64cmp",
    "cpu32pip",
    "cpu32cmp",
    "cpu16pip",
    "cpu16cmp",
    "cpu8pip",
    "cpu8cmp",
)
# 2017 test names -> twinbench workload names (docs/usage/workloads.md: its 2017 source column).
WORKLOADS = {
    "mnist_mlp": "mlp",
    "mnist_cnn": "cnn",
    "cifar10_cnn": "cifar10_cnn",
    "imdb_fasttext": "fasttext",
    "imdb_bidirectional_lstm": "bilstm",
    "lstm_text_generation": "charlstm",
    "text_generator_keras": "textgen",
}
GPU_MACHINE = "GCE 2017: 1 x Tesla K80"
CPU_MACHINE = "GCE 2017: Skylake vCPUs"


def find_root(path: Path) -> Path | None:
    """The logs folder if `path` is one (or holds one as `logs/`), else None."""
    for candidate in (Path(path), Path(path) / "logs"):
        if not candidate.is_dir():
            continue
        folders = [candidate / "gpu"] + [candidate / b / p for b in BUILDS for p in PLATFORMS]
        if any(next(folder.glob(f"*{SUFFIX}"), None) for folder in folders):
            return candidate
    return None


def _read_log(path: Path) -> list[dict[str, str]]:
    # newline="" lets csv handle the logs' CRLF line ends.
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        if not reader.fieldnames or not {"epoch", "elapsed"} <= set(reader.fieldnames):
            raise AnalysisError(f"{path}: not a 2017 log (needs columns epoch, elapsed)")
        return list(reader)


def _floats(rows: list[dict[str, str]], column: str, path: Path, required: bool = False):
    """One column as floats; an optional column that is absent or blank gives []."""
    values = []
    for i, row in enumerate(rows):
        text = (row.get(column) or "").strip()
        if not text and not required:
            return []
        try:
            values.append(float(text))
        except ValueError:
            raise AnalysisError(
                f"{path}: line {i + 2}: column {column!r} is not a number: {text!r}"
            ) from None
    return values


def _row(path: Path, test: str, label: str, build: str | None, vcpus: int | None) -> dict:
    rows = _read_log(path)
    times = _floats(rows, "elapsed", path, required=True)
    if not times:
        raise AnalysisError(f"{path}: a 2017 log with no epochs")
    history = {
        "loss": _floats(rows, "loss", path),
        "accuracy": _floats(rows, "acc", path),
        "val_loss": _floats(rows, "val_loss", path),
        "val_accuracy": _floats(rows, "val_acc", path),
    }
    history = {k: v for k, v in history.items() if v}
    settings = {"build": build} if build else {}
    gpu = build is None
    return {
        "source": SOURCE,
        "path": str(path),
        "machine": GPU_MACHINE if gpu else CPU_MACHINE,
        "schema_version": None,
        "status": "ok",
        "run_key": f"2017:{test}:{label}",
        "run_key_derived": True,
        "repeat": 0,
        "repeats": 1,
        "backend": BACKEND,
        **backends.columns(BACKEND),
        "model": WORKLOADS.get(test, test),
        "legacy_test": test,
        "device": "cuda" if gpu else "cpu",
        "cpus": vcpus,
        "epochs": len(times),
        "workload_epochs": len(times),
        "epochs_timed": len(times),
        "settings": canonical(settings),
        "settings_label": settings_label(settings) if settings else "default",
        # pip was what users got out of the box; compiled was the tuning.
        "settings_default": None if gpu else build == "pip",
        "config_label": label,
        "legacy_label": label,
        # R's sum() over the epochs; fsum gives its correctly rounded result.
        "train_time_s": math.fsum(times),
        "epoch_time_first_s": times[0],
        "epoch_times_s": canonical(times),
        "history": canonical(history),
        "final_loss": history.get("loss", [None])[-1],
        "final_accuracy": history.get("accuracy", [None])[-1],
        "final_val_loss": history.get("val_loss", [None])[-1],
        "final_val_accuracy": history.get("val_accuracy", [None])[-1],
        "framework_version": "TensorFlow 1.x with Keras 2 (2017)",
        "cpu_model": "NVIDIA Tesla K80 (GPU)" if gpu else "Intel Skylake (GCE vCPUs)",
        "isa_flags": "avx2 fma (compiled builds)" if build == "compiled" else "",
        "config_hash": short_hash(label),
        "content_hash": short_hash([times, history]),
    }


def load(root: Path) -> list[dict[str, Any]]:
    """Every 2017 log under `root` (a folder find_root accepted) as table rows."""
    rows = []
    for path in sorted((root / "gpu").glob(f"*{SUFFIX}")):
        rows.append(_row(path, path.name.removesuffix(SUFFIX), "gpu", None, None))
    for build_dir, (build, short) in BUILDS.items():
        for platform in PLATFORMS:
            for path in sorted((root / build_dir / platform).glob(f"*{SUFFIX}")):
                test = path.name.removesuffix(SUFFIX)
                vcpus = int(platform.removeprefix("cpu"))
                rows.append(_row(path, test, f"{platform}{short}", build, vcpus))
    if not rows:
        raise AnalysisError(f"{root}: no 2017 logs (*{SUFFIX}) found")
    return rows
