"""Learning curves over seeds: the agreement test and the command around it (no training here:
each run is a result record, as run.py would write it)."""

from __future__ import annotations

import json

import pandas as pd
import pytest

from analysis.compute import seed_curves
from analysis.load.records import SOURCE
from twinbench.cli import curves


def test_means_within_two_seed_deviations_agree():
    same = seed_curves.agreement(
        {"tensorflow": [0.10, 0.12, 0.11], "torch": [0.11, 0.13, 0.12]}, "val_loss"
    )
    assert same["agree"] and same["band"] == pytest.approx(2 * 0.01)
    assert 0.2 < same["welch_p"] < 1


def test_a_gap_beyond_the_seed_band_differs():
    # the finding: torch's val_loss 0.33 against TensorFlow's 0.17, seeds within 0.01
    apart = seed_curves.agreement(
        {"tensorflow": [0.17, 0.18, 0.17], "torch": [0.33, 0.34, 0.33]}, "val_loss"
    )
    assert not apart["agree"] and apart["welch_p"] < 0.01


def test_identical_seeds_are_judged_against_the_relative_floor():
    tight = seed_curves.agreement({"tensorflow": [0.5, 0.5], "torch": [0.505, 0.505]}, "val_loss")
    assert tight["band"] == pytest.approx(seed_curves.REL_FLOOR * 0.5025) and tight["agree"]


def _history(val_loss: float) -> dict[str, list[float]]:
    return {"loss": [0.5, 0.3], "accuracy": [0.8, 0.9], "val_loss": [0.4, val_loss],
            "val_accuracy": [0.85, 0.9]}  # fmt: skip


def test_the_command_trains_each_seed_in_both_frameworks_and_writes_its_verdict(
    tmp_path, monkeypatch
):
    trained = []

    def fake_train(out, model, backend, seed, extra):
        trained.append((backend, seed, tuple(extra)))
        return {"status": "ok", "history": _history(0.1 + 0.01 * seed)}

    monkeypatch.setattr(curves, "train", fake_train)
    code = curves.main(
        ["mlp", "--seeds", "2", "--epochs", "1", "--max-steps", "3", "--out", str(tmp_path)]
    )
    assert code == 0
    assert {(b, s) for b, s, _ in trained} == {(b, s) for b in curves.BACKENDS for s in (0, 1)}
    assert "epochs=1" in trained[0][2] and "max_steps=3" in trained[0][2]
    verdict = json.loads((tmp_path / "mlp" / "agreement.json").read_text())
    assert {row["metric"] for row in verdict["metrics"]} == set(seed_curves.METRICS)


def test_one_seed_is_refused_with_what_to_do(capsys):
    with pytest.raises(SystemExit) as exit_:
        curves.main(["mlp", "--seeds", "1"])
    assert exit_.value.code == 2 and "--seeds must be at least 2" in capsys.readouterr().err


def test_the_report_draws_bands_only_where_a_framework_has_several_seeds():
    rows = [
        {"source": SOURCE, "status": "ok", "model": "mlp", "backend": b, "seed": s,
         "epochs_timed": 2, "history": json.dumps(_history(0.1 + 0.01 * s))}
        for b in ("torch", "tensorflow") for s in (0, 1, 2)
    ]  # fmt: skip
    histories = seed_curves.seed_histories(pd.DataFrame(rows))
    assert sorted(histories["mlp"]["torch"]) == [0, 1, 2]
    table = seed_curves.agreement_table(histories)
    assert table["agree"].all() and set(table["metric"]) == set(seed_curves.METRICS)
    single = seed_curves.seed_histories(pd.DataFrame(rows[:1] + rows[3:4]))
    assert seed_curves.agreement_table(single).empty


def test_epochs_between_validations_are_skipped_in_the_verdict_and_the_figure():
    """validate_every (tl_mlp): null val entries; finals are the last validated values, and the
    figure draws only the epochs every seed validated."""
    gappy = {
        s: {"loss": [0.5, 0.4, 0.3], "accuracy": [0.8, 0.85, 0.9],
            "val_loss": [0.4, None, 0.2 + 0.01 * s], "val_accuracy": [0.85, None, None]}
        for s in (0, 1, 2)
    }  # fmt: skip
    histories = {"tl_mlp": {"torch": gappy, "tensorflow": gappy}}
    rows = {r["metric"]: r for r in seed_curves.agreement_rows(histories)}
    assert rows["val_loss"]["mean_torch"] == pytest.approx(0.21)
    assert rows["val_accuracy"]["mean_torch"] == pytest.approx(0.85)
    fig = seed_curves.figure("tl_mlp", histories["tl_mlp"])
    assert list(fig.axes[0].lines[0].get_xdata()) == [1, 3]
