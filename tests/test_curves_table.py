"""The curves table (twinbench/cli/curves_table.py): built from fake runs (no training: each run
is a result record, as run.py would write it), and a cap in conf/curves/ for every workload."""

from __future__ import annotations

from models import catalog
from twinbench.cli import curves, curves_table


def test_every_workload_has_a_cap_of_at_least_two_epochs():
    """A workload added to conf/model/ without a line in conf/curves/default.yaml fails here,
    so the table cannot silently leave it out."""
    caps = curves_table.caps()
    assert sorted(caps) == catalog.names()
    assert all(cap.epochs >= 2 for cap in caps.values()), "one epoch draws no curve"
    assert all(cap.max_steps is None or cap.max_steps > 0 for cap in caps.values())


def _history(val_loss: float, val_accuracy: float) -> dict[str, list[float]]:
    return {"loss": [0.5, 0.3], "accuracy": [0.8, 0.9], "val_loss": [0.4, val_loss],
            "val_accuracy": [0.85, val_accuracy]}  # fmt: skip


def test_the_table_has_a_row_per_workload_and_pair_and_fails_on_one_disagreement(
    tmp_path, monkeypatch, capsys
):
    trained = []

    def fake_train(out, model, backend, seed, extra):
        trained.append((model, backend, seed, tuple(extra)))
        off = 0.5 if (model, backend) == ("cnn", "keras_jax") else 0.0  # far outside the band
        return {"status": "ok", "history": _history(0.1 + 0.01 * seed + off, 0.9 + 0.01 * seed)}

    monkeypatch.setattr(curves, "train", fake_train)
    code = curves_table.main(["--models", "mlp,cnn", "--seeds", "2", "--out", str(tmp_path)])
    assert code == 1
    caps = curves_table.caps()
    for model in ("mlp", "cnn"):  # each workload trained at its conf cap
        extra = {e for m, _, _, x in trained if m == model for e in x}
        assert f"epochs={caps[model].epochs}" in extra
        assert f"max_steps={caps[model].max_steps}" in extra
    assert len(trained) == 2 * len(curves.BACKENDS) * 2
    table = (tmp_path / curves_table.TABLE_FILE).read_text()
    assert table in capsys.readouterr().out
    rows = [line for line in table.splitlines() if line.startswith("| mlp") or "| cnn" in line]
    others = [b for b in curves.BACKENDS if b != "torch"]  # torch: the report's reference
    assert [r.split(" | ")[1] for r in rows] == [f"torch vs {b}" for b in others] * 2
    verdicts = {(r.split(" | ")[0][2:], r.split(" | ")[1]): r.split(" | ")[-2] for r in rows}
    assert verdicts[("cnn", "torch vs keras_jax")] == "disagree (val_loss)"
    assert {v for k, v in verdicts.items() if k != ("cnn", "torch vs keras_jax")} == {"agree"}
    mlp_jax = next(r for r in rows if r.startswith("| mlp | torch vs keras_jax"))
    # val_loss of seeds 0 and 1: 0.10 and 0.11 on each side
    assert "| 0.105 ± 0.0071 | 0.105 ± 0.0071 |" in mlp_jax and "(val_loss)" in mlp_jax
    assert mlp_jax.endswith(f"| {caps['mlp'].label()} |")


def test_all_agreeing_exits_zero_and_the_smoke_overrides_replace_the_caps(tmp_path, monkeypatch):
    trained = []

    def fake_train(out, model, backend, seed, extra):
        trained.append(extra)
        return {"status": "ok", "history": _history(0.1 + 0.01 * seed, 0.9)}

    monkeypatch.setattr(curves, "train", fake_train)
    argv = ["--models", "mlp", "--seeds", "2", "--epochs", "2", "--max-steps", "3"]
    assert curves_table.main([*argv, "--out", str(tmp_path)]) == 0
    assert all("epochs=2" in x and "max_steps=3" in x for x in trained)
    assert "| 2 ep x 3 steps/epoch |" in (tmp_path / curves_table.TABLE_FILE).read_text()


def test_a_finished_run_is_reused_only_at_the_length_asked_for():
    """A cap changed in conf/curves/ retrains instead of tabulating the old length."""
    record = {"config": {"epochs": 2, "max_steps": 40, "cpus": 2}}
    assert curves.same_length(record, curves.overrides(2, 40, 1))
    assert not curves.same_length(record, curves.overrides(3, 40, 2))
    assert not curves.same_length(record, curves.overrides(2, None, 2))
    assert curves.same_length({"config": {"epochs": None}}, curves.overrides(None, None, None))
