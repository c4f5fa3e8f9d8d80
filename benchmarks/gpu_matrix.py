"""The GPU matrix on a lent device machine: models x backends x fp32/tf32/bf16 x eager/compiled.

    python -m benchmarks.gpu_matrix --dry-run                 # the plan: cells, estimated time
    python -m benchmarks.gpu_matrix --fetch-wheels .gpu-wheels  # here: the wheels to carry
    python -m benchmarks.gpu_matrix --wheels .gpu-wheels --out $OUT/gpu   # on the device

On the device machine it first installs what the image lacks (benchmarks/gpu_requirements.txt)
from the carried wheels, offline, before it reads any yaml; then times cuBLAS GEMMs in float32,
TF32 and bfloat16 (gemm.json: the GPU's peaks), then runs the cells of
benchmarks/gpu_matrix.yaml as ordinary `run.py ... device=cuda` runs, one fresh worker each,
eager cells first, and starts a cell only while its estimate fits what is left of the budget.
Every record lands under --out, which `python -m analysis report OUT` reads like any results
folder; manifest.json lists each cell's overrides, status and wall time, and the cells left
out for time. --dry-run imports neither torch nor Hydra.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
CONFIG = HERE / "gpu_matrix.yaml"
REQUIREMENTS = HERE / "gpu_requirements.txt"


@dataclass(frozen=True)
class Cell:
    model: str
    backend: str
    precision: str  # fp32, tf32 or bf16 (the yaml's precisions)
    exec: str  # eager or compiled
    overrides: tuple[str, ...]
    estimate_s: float

    @property
    def name(self) -> str:
        return f"{self.model}-{self.backend}-{self.precision}-{self.exec}"


def load_config(path: Path = CONFIG) -> dict[str, Any]:
    import yaml  # the device has it only after install_missing

    return yaml.safe_load(path.read_text())


def estimate(cfg: dict[str, Any], backend: str, exec_mode: str) -> float:
    """A cell's planned seconds: start-up, its short run's steps, and compilation if compiled."""
    est = cfg["estimate_s"]
    steps = _max_steps(cfg) * 2  # training steps, and as many validation steps at most
    compile_s = est["compile"][backend] if exec_mode == "compiled" else 0.0
    return float(est["startup"] + steps * est["step"] + compile_s)


def _max_steps(cfg: dict[str, Any]) -> int:
    for item in cfg["run"]:
        key, _, value = item.partition("=")
        if key == "max_steps":
            return int(value)
    raise ValueError("benchmarks/gpu_matrix.yaml: run must set max_steps (short runs only)")


def plan(cfg: dict[str, Any], execs: list[str] | None = None) -> list[Cell]:
    """Every cell, eager ones first (the question's core), then compiled; within each, model by
    model with both backends and every precision together, so a cut leaves whole models.
    `execs` keeps those modes only (a second session runs the compiled cells the first left)."""
    cells = []
    for exec_mode in [e for e in cfg["execs"] if execs is None or e in execs]:
        for model in cfg["models"]:
            for backend in cfg["backends"]:
                for prec, prec_overrides in cfg["precisions"].items():
                    overrides = (
                        f"backend={backend}",
                        f"model={model}",
                        "device=cuda",
                        f"exec={exec_mode}",
                        *prec_overrides,
                        *cfg["run"],
                    )
                    cells.append(
                        Cell(
                            model,
                            backend,
                            prec,
                            exec_mode,
                            overrides,
                            estimate(cfg, backend, exec_mode),
                        )
                    )
    return cells


def within_budget(cells: list[Cell], available_s: float) -> tuple[list[Cell], list[Cell]]:
    """The cells taken in order while their estimates fit, and those left out. A cell too long
    is skipped and a shorter one after it may still fit."""
    taken, left, used = [], [], 0.0
    for cell in cells:
        if used + cell.estimate_s <= available_s:
            taken.append(cell)
            used += cell.estimate_s
        else:
            left.append(cell)
    return taken, left


def available_s(cfg: dict[str, Any]) -> float:
    """The budget less the GEMM probe and the margin kept for the manifest and the copy back."""
    return float(cfg["budget_s"] - cfg["margin_s"] - cfg["gemm_probe"]["estimate_s"])


def describe_plan(cfg: dict[str, Any], execs: list[str] | None = None) -> str:
    cells = plan(cfg, execs)
    taken, left = within_budget(cells, available_s(cfg))
    lines = [
        f"GPU matrix: {len(cells)} cells; budget {cfg['budget_s']} s "
        f"(GEMM probe ~{cfg['gemm_probe']['estimate_s']} s, margin {cfg['margin_s']} s)",
        f"{'cell':<44} {'estimate':>9}  plan",
    ]
    for cell in cells:
        verdict = "run" if cell in taken else "left out (time)"
        lines.append(f"{cell.name:<44} {cell.estimate_s:8.0f}s  {verdict}")
    lines.append(
        f"planned: {len(taken)} cells, ~{sum(c.estimate_s for c in taken):.0f} s; "
        f"left out: {len(left)} (~{sum(c.estimate_s for c in left):.0f} s). Estimates are "
        "guesses written before any GPU run (benchmarks/gpu_matrix.yaml), not measurements."
    )
    return "\n".join(lines)


def fetch_wheels(folder: Path) -> int:
    """Here, with network: the wheels of gpu_requirements.txt and their dependencies, for the
    device's Python (this one's version and platform: check they match the image's)."""
    # `pip wheel`, not `download --only-binary`: Hydra's antlr4-python3-runtime 4.9 is published
    # as a source archive only, and the device must install offline without building.
    cmd = [sys.executable, "-m", "pip", "wheel", "-q", "-w", str(folder)]
    return subprocess.call([*cmd, "-r", str(REQUIREMENTS)])


def install_missing(wheels: Path) -> None:
    """On the device: install what the image lacks, offline from the carried wheels; pip
    leaves a requirement already satisfied as it is (torch and numpy stay the image's)."""
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-index", "--find-links"]
    subprocess.run([*cmd, str(wheels), "-r", str(REQUIREMENTS)], check=True)


def gemm_probe(cfg: dict[str, Any], out: Path) -> None:
    """The GPU's cuBLAS peaks in a process of their own (frameworks/torch_native/cuda.py)."""
    probe = cfg["gemm_probe"]
    code = (
        "import json, sys; from frameworks.torch_native import cuda; "
        f"json.dump(cuda.gemm_rates({int(probe['size'])}, {float(probe['seconds'])}), "
        "sys.stdout)"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, check=True
    )
    rates = json.loads(done.stdout)
    (out / "gemm.json").write_text(
        json.dumps({"unit": "GFLOP/s", "size": probe["size"], "rates": rates}, indent=1)
    )
    print("GEMM peaks (GFLOP/s): " + ", ".join(f"{k} {v:.0f}" for k, v in rates.items()))


def run_cells(
    cfg: dict[str, Any], out: Path, started: float, execs: list[str] | None = None
) -> list[dict[str, Any]]:
    """Each cell as an ordinary run (run.py: a fresh worker), while its estimate still fits."""
    deadline = started + cfg["budget_s"] - cfg["margin_s"]
    done = []
    for cell in plan(cfg, execs):
        left = deadline - time.monotonic()
        if cell.estimate_s > left:
            done.append({**asdict(cell), "status": "left out (time)"})
            continue
        t0 = time.monotonic()
        # The cell's own limit: what is left, so one slow compile cannot eat the matrix.
        limit = max(int(left), 1)
        proc = subprocess.run(
            [
                sys.executable,
                "run.py",
                *cell.overrides,
                f"time_limit_s={limit}",
                f"hydra.run.dir={out / cell.name}",
            ],
            cwd=ROOT,
            capture_output=True,
            text=True,
        )
        wall = time.monotonic() - t0
        status = "ok" if proc.returncode == 0 else f"failed (exit {proc.returncode})"
        print(f"{cell.name:<44} {wall:6.1f}s  {status}", flush=True)
        if proc.returncode != 0:
            (out / f"{cell.name}.stderr.txt").write_text(proc.stderr[-20000:])
        done.append({**asdict(cell), "status": status, "wall_s": wall})
    return done


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--dry-run", action="store_true", help="print the plan; import nothing")
    p.add_argument("--fetch-wheels", type=Path, help="download the wheels to carry, and stop")
    p.add_argument("--wheels", type=Path, help="carried wheels to install what the device lacks")
    p.add_argument("--out", type=Path, default=ROOT / "results" / "gpu", help="records go here")
    p.add_argument(
        "--exec",
        nargs="+",
        choices=("eager", "compiled"),
        help="these execution modes only (default: both, eager first)",
    )
    args = p.parse_args(argv)
    if args.fetch_wheels:
        return fetch_wheels(args.fetch_wheels)
    if args.dry_run:
        print(describe_plan(load_config(), args.exec))
        return 0
    started = time.monotonic()
    if args.wheels:
        install_missing(args.wheels)
    sys.path.insert(0, str(ROOT))
    from twinbench.machine import cpu

    if not cpu.gpu_visible():
        print("gpu_matrix: no NVIDIA GPU is visible here; --dry-run shows the plan")
        return 2
    cfg = load_config()
    args.out.mkdir(parents=True, exist_ok=True)
    gemm_probe(cfg, args.out)
    cells = run_cells(cfg, args.out, started, args.exec)
    manifest = {"budget_s": cfg["budget_s"], "wall_s": time.monotonic() - started, "cells": cells}
    (args.out / "manifest.json").write_text(json.dumps(manifest, indent=1))
    ran = sum(c["status"] == "ok" for c in cells)
    print(f"{ran} of {len(cells)} cells ok in {manifest['wall_s']:.0f} s; records in {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
