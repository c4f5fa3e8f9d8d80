"""benchmarks/gpu_matrix.py without a GPU: its plan (dry run), the budget cut, and every cell's
overrides composing into a valid device=cuda run spec (issue 42 items 5-6)."""

from __future__ import annotations

import subprocess
import sys

import pytest

from benchmarks import gpu_matrix
from tests.conftest import REPO_ROOT
from twinbench.config.spec import build_spec
from twinbench.machine import cpu


def test_dry_run_prints_the_plan_without_importing_torch_or_hydra():
    code = (
        "import sys; from benchmarks import gpu_matrix; rc = gpu_matrix.main(['--dry-run']); "
        "heavy = sorted({'torch', 'hydra', 'keras'} & {m.split('.')[0] for m in sys.modules}); "
        "print('IMPORTED', heavy); sys.exit(rc)"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code], cwd=REPO_ROOT, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "GPU matrix: 48 cells; budget 480 s" in out
    assert "mlp-torch-fp32-eager" in out and "imdb_transformer-keras_torch-bf16-compiled" in out
    assert "not measurements" in out
    assert out.strip().splitlines()[-1] == "IMPORTED []"


def test_the_plan_is_the_issues_matrix_eager_first():
    cfg = gpu_matrix.load_config()
    cells = gpu_matrix.plan(cfg)
    assert len(cells) == 4 * 2 * 3 * 2
    assert {(c.model, c.backend, c.precision, c.exec) for c in cells} == {
        (m, b, p, e)
        for m in ("mlp", "cnn", "gpt", "imdb_transformer")
        for b in ("torch", "keras_torch")
        for p in ("fp32", "tf32", "bf16")
        for e in ("eager", "compiled")
    }
    execs = [c.exec for c in cells]
    assert execs == sorted(execs, key=("eager", "compiled").index)
    tf32 = next(c for c in cells if c.precision == "tf32")
    assert {"precision=float32", "backend.tf32=true", "device=cuda"} <= set(tf32.overrides)
    fp32 = next(c for c in cells if c.precision == "fp32")
    assert "backend.tf32=false" in fp32.overrides  # strict: cuDNN's TF32 off too


def test_the_budget_takes_cells_in_order_while_they_fit():
    def cell(name: str, s: float) -> gpu_matrix.Cell:
        return gpu_matrix.Cell(name, "torch", "fp32", "eager", (), s)

    a, big, b, c = cell("a", 10), cell("big", 100), cell("b", 20), cell("c", 15)
    taken, left = gpu_matrix.within_budget([a, big, b, c], 45)
    assert taken == [a, b, c] and left == [big]  # a long cell skipped, shorter ones still run
    cfg = gpu_matrix.load_config()
    planned, _ = gpu_matrix.within_budget(gpu_matrix.plan(cfg), gpu_matrix.available_s(cfg))
    assert sum(c.estimate_s for c in planned) <= cfg["budget_s"] - cfg["margin_s"]


def test_every_cell_composes_into_a_valid_cuda_run(compose, monkeypatch):
    monkeypatch.setattr(cpu, "gpu_visible", lambda: True)  # the device machine, pretended
    for cell in gpu_matrix.plan(gpu_matrix.load_config()):
        if cell.exec == "compiled" and (why := _compile_refused(cell.backend)):
            pytest.skip(why)
        spec = build_spec(compose(*cell.overrides))
        assert (spec.device, spec.model, spec.backend) == ("cuda", cell.model, cell.backend)
        assert spec.epochs == 1 and spec.max_steps == 30


def _compile_refused(backend: str) -> str | None:
    from frameworks import registry

    return registry.spec(backend).compile_check()


def test_a_second_session_can_plan_the_compiled_cells_alone(capsys):
    cfg = gpu_matrix.load_config()
    compiled = gpu_matrix.plan(cfg, ["compiled"])
    assert len(compiled) == 24 and {c.exec for c in compiled} == {"compiled"}
    assert gpu_matrix.main(["--dry-run", "--exec", "compiled"]) == 0
    out = capsys.readouterr().out
    assert "GPU matrix: 24 cells" in out and "-eager" not in out


def test_without_a_gpu_the_script_says_so_and_runs_nothing(monkeypatch, tmp_path, capsys):
    monkeypatch.setattr(cpu, "gpu_visible", lambda: False)
    assert gpu_matrix.main(["--out", str(tmp_path / "gpu")]) == 2
    assert "no NVIDIA GPU is visible" in capsys.readouterr().out
    assert not (tmp_path / "gpu").exists()
