"""Optional export to MLflow (a local file store). Skipped where MLflow is not installed; the
refusal without it is tested everywhere."""

from __future__ import annotations

import sys

from analysis.__main__ import main

from . import test_analysis_fakes as fakes


def test_without_mlflow_the_export_is_a_one_line_refusal(tmp_path, monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "mlflow", None)  # import mlflow now raises ImportError
    fakes.sweep(tmp_path / "s", {("torch", 1): [[1.0]]})
    assert main(["mlflow", str(tmp_path / "s")]) == 2
    assert capsys.readouterr().err.startswith("analysis: error: MLflow is not installed")


def test_a_sweep_exports_one_mlflow_run_per_twinbench_run_once(tmp_path):
    import mlflow  # requirements-dev.txt pins it: the export is tested, never skipped

    sweep = tmp_path / "s"
    fakes.sweep(sweep, {("torch", 1): [[1.0, 2.0]], ("tensorflow", 1): [[2.0, 4.0]]})
    fakes.write(sweep, "dead", fakes.failed("torch", 2, "worker exit code 1: boom"))
    uri = (tmp_path / "mlruns").as_uri()
    assert main(["mlflow", str(sweep), "--tracking-uri", uri, "--experiment", "t"]) == 0
    client = mlflow.MlflowClient(tracking_uri=uri)
    experiment = client.get_experiment_by_name("t")
    runs = {r.info.run_name: r for r in client.search_runs([experiment.experiment_id])}
    assert set(runs) == {"mlp torch cpu1 r0", "mlp tensorflow cpu1 r0", "mlp torch cpu2 r0"}
    torch_run = runs["mlp torch cpu1 r0"]
    assert torch_run.data.params["backend"] == "torch" and torch_run.data.params["cpus"] == "1"
    assert torch_run.data.metrics["train_time_s"] == 3.0
    history = client.get_metric_history(torch_run.info.run_id, "epoch/epoch_time_s")
    assert [(m.step, m.value) for m in history] == [(1, 1.0), (2, 2.0)]
    failed = runs["mlp torch cpu2 r0"]
    assert failed.info.status == "FAILED" and "boom" in failed.data.tags["twinbench.error"]
    # exporting again adds nothing
    assert main(["mlflow", str(sweep), "--tracking-uri", uri, "--experiment", "t"]) == 0
    assert len(client.search_runs([experiment.experiment_id])) == 3
