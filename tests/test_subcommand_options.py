"""A subcommand's options pass the checks of the run keys they stand for, before any work starts
(issue 45): `curves --cpus 0` ran on every core (0 was dropped as "not given"), and `calibrate
--cpus 0` calibrated and cached a core count nobody asked for. No training here: the work each
command would start is replaced by a tripwire."""

from __future__ import annotations

import argparse

import pytest

from twinbench.cli import calibrate, curves, curves_table
from twinbench.measure import noise


def _tripwire(*args, **kwargs):
    raise AssertionError("work started despite a refused option")


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--cpus", "0"], "cpus must be at least 1, got 0"),
        (["--cpus", "4096"], "cpus=4096 but this process may use only"),
        (["--epochs", "0"], "epochs must be at least 1, got 0"),
        (["--max-steps", "0"], "max_steps must be at least 1, got 0"),
    ],
)
def test_curves_refuses_an_option_its_runs_could_not_take(
    argv, message, tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(curves, "train", _tripwire)
    with pytest.raises(SystemExit) as exit_:
        curves.main(["mlp", "--seeds", "2", "--out", str(tmp_path), *argv])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("twinbench: error: ") and message in err and "\n" not in err


@pytest.mark.parametrize("main", [curves.main, curves_table.main])
def test_an_out_that_cannot_hold_the_runs_is_refused_as_out(main, tmp_path, monkeypatch, capsys):
    """It was refused as "hydra.run.dir=<out>/mlp/torch/seed0: ...; choose another
    hydra.run.dir", a key the user never wrote."""
    monkeypatch.setattr(curves, "train", _tripwire)
    blocker = tmp_path / "a-file"
    blocker.write_text("")
    with pytest.raises(SystemExit) as exit_:
        main([*(["mlp", "--seeds", "2"] if main is curves.main else ["--models", "mlp"]),
              "--out", str(blocker / "curves")])  # fmt: skip
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert f"--out={blocker / 'curves'}: {blocker} is a file" in err
    assert err.endswith("choose another --out") and "hydra" not in err


def test_the_curves_table_refuses_a_bad_cap_before_the_first_workload_trains(
    tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(curves, "train", _tripwire)
    with pytest.raises(SystemExit) as exit_:
        curves_table.main(["--models", "mlp", "--max-steps", "0", "--out", str(tmp_path)])
    assert exit_.value.code == 2
    assert "max_steps must be at least 1, got 0" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--cpus", "0"], "cpus must be at least 1, got 0"),
        (["--epochs", "0"], "epochs must be at least 1, got 0"),
        (["--max-steps", "-1"], "max_steps must be at least 1, got -1"),
        # no step past the default warm-up of 10: no pair would have a steady step (issue 45)
        (
            ["--epochs", "2", "--max-steps", "2"],
            "--max-steps 2 at --epochs 2 leaves no step past the warm-up "
            "(measure.warmup_steps=10) that does not open an epoch, so no pair would have a "
            "steady step to compare: use --max-steps 6 or more",
        ),
        (["--epochs", "1", "--max-steps", "10"], "use --max-steps 11 or more"),
    ],
)
def test_calibrate_refuses_an_option_its_runs_could_not_take(
    argv, message, tmp_path, monkeypatch, capsys
):
    monkeypatch.setattr(noise, "calibrate", _tripwire)
    with pytest.raises(SystemExit) as exit_:
        calibrate.main(["--cache-dir", str(tmp_path), *argv])
    assert exit_.value.code == 2
    assert message in capsys.readouterr().err


@pytest.mark.parametrize("argv", [["--epochs", "1", "--max-steps", "11"], ["--epochs", "2"]])
def test_calibrate_takes_a_workload_with_a_steady_step(argv):
    """The shortest run past its warm-up, and calibrate's default (whole epochs), go ahead."""
    parser = argparse.ArgumentParser()
    calibrate.add_arguments(parser)
    assert calibrate.too_short(parser.parse_args(["--cpus", "1", *argv])) is None


def test_calibrate_refuses_a_file_as_its_cache_dir(tmp_path, monkeypatch, capsys):
    blocker = tmp_path / "file"
    blocker.write_text("")
    monkeypatch.setattr(noise, "calibrate", _tripwire)
    with pytest.raises(SystemExit) as exit_:
        calibrate.main(["--cpus", "1", "--cache-dir", str(blocker)])
    assert exit_.value.code == 2
    assert "is a file, not a directory; choose another --cache-dir" in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["--models", "mlpp"], "--models: mlpp is not a workload with a cap in "
         "conf/curves/default.yaml (comma-separated, from: bilstm, "),
        (["--backends", "torch,tensorflw"], "--backends: unknown backend tensorflw; name two or "
         "more of torch, tensorflow"),
        (["--backends", "torch"], "--backends: name two or more of torch, tensorflow"),
    ],
)  # fmt: skip
def test_the_curves_table_names_what_it_can_take_for_a_bad_list(
    argv, message, tmp_path, monkeypatch, capsys
):
    """'--models: mlpp not a workload with a cap in default.yaml' named neither the file's
    folder nor the choices; a misspelt backend read as too few backends."""
    monkeypatch.setattr(curves, "train", _tripwire)
    with pytest.raises(SystemExit) as exit_:
        curves_table.main([*argv, "--out", str(tmp_path)])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert message in err and "\n" not in err
