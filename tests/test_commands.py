"""One command line: every `twinbench` subcommand has --help, the old spellings are the same
commands, and docs/reference/commands.md is what the parsers say."""

from __future__ import annotations

import subprocess
import sys

import pytest

import analysis.__main__ as analysis_cli
from frameworks.registry import REFERENCE
from twinbench.cli import commands, reference
from twinbench.cli.main import main
from twinbench.paths import REPO_ROOT

PARSED = [name for name, c in commands.COMMANDS.items() if c.add_arguments is not None]


def option_strings(parser) -> set[str]:
    return {s for action in parser._actions for s in action.option_strings} | {
        action.dest for action in parser._actions if not action.option_strings
    }


def test_every_command_is_listed_with_its_one_line_summary(capsys):
    assert main(["--help"]) == 0
    out = capsys.readouterr().out
    for name, command in commands.COMMANDS.items():
        assert f"  {name} " in out and command.summary in out
        assert "\n" not in command.summary


@pytest.mark.parametrize("name", PARSED)
def test_each_parsed_command_has_a_help_that_names_it(name, capsys):
    with pytest.raises(SystemExit) as exit_:
        main([name, "--help"])
    assert exit_.value.code == 0
    assert capsys.readouterr().out.startswith(f"usage: twinbench {name} ")


def test_bench_lists_the_benchmarks_with_what_each_measures(capsys):
    assert main(["bench", "--help"]) == 0
    lines = capsys.readouterr().out.splitlines()
    overhead = next(line for line in lines if line.strip().startswith("overhead "))
    assert overhead.split(None, 1)[1] == (
        "Does twinbench slow down what it measures? twinbench vs a bare loop, A/B interleaved."
    )
    assert not any(line.strip().startswith("pairs ") for line in lines)  # a helper, no command


# runpy warns when an earlier test of this process imported the module (see below).
@pytest.mark.filterwarnings("ignore:.*found in sys.modules after import:RuntimeWarning")
def test_bench_runs_the_module_as_python_m_would_and_returns_its_status(capsys):
    assert main(["bench", "table", "--help"]) == 0  # the benchmark's own argparse help
    assert "--outside" in capsys.readouterr().out


def _bench(argv: list[str]) -> int:
    try:
        return main(["bench", *argv])
    except SystemExit as exit_:  # argparse's own exit
        return exit_.code


# runpy warns when a benchmark module was imported by an earlier test of this process; `python
# -m` in a fresh process, as users run them, never sees it.
@pytest.mark.filterwarnings("ignore:.*found in sys.modules after import:RuntimeWarning")
def test_every_benchmark_describes_its_arguments_without_a_traceback(capsys):
    """`twinbench bench --help` promises each benchmark's --help: attention, bare_loop and
    optimizer_step read sys.argv by position and raised from inside their set-up (unknown
    backend '--help'), and thp_off tried to execute `--help`."""
    from twinbench.cli import bench

    for name in bench.available():
        assert _bench([name, "--help"]) == 0, name
        assert "Traceback" not in capsys.readouterr().err


@pytest.mark.parametrize(
    "argv, message",
    [
        (["bare_loop", "torch", "mlp", "0", "10", "2"], "argument cpus: must be at least 1, got 0"),
        (["bare_loop", "torch", "nosuch", "1", "10", "2"], "argument model: invalid choice"),
        (["attention", "nosuch"], "argument backend: invalid choice: 'nosuch'"),
        (["optimizer_step", "mlp", "one"], "argument cpus: not a whole number: 'one'"),
        (["thp_off", "no-such-command"], "thp_off: no such command: no-such-command"),
    ],
)
def test_a_benchmarks_bad_positional_argument_is_refused_before_any_work(argv, message, capsys):
    assert _bench(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err


def test_an_unknown_benchmark_is_one_line_and_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["bench", "nope"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("twinbench: error: unknown benchmark 'nope'; choose one of: ")
    assert "\n" not in err


@pytest.mark.parametrize("name", ["report", "collect", "mlflow"])
def test_the_analysis_commands_take_the_same_options_under_both_spellings(name):
    description, add_arguments, _ = analysis_cli.COMMANDS[name]
    old = analysis_cli._parser(analysis_cli.PROG, description)
    add_arguments(old)
    assert option_strings(old) == option_strings(commands.COMMANDS[name].parser("twinbench"))


def test_parity_passes_its_options_on_to_the_certificate_command(monkeypatch):
    from twinbench.parity import cli as parity_cli

    seen = []
    monkeypatch.setattr(parity_cli, "main", lambda argv: seen.append(argv) or 0)
    assert main(["parity", "mlp", "--backends", "keras_torch", "--quiet"]) == 0
    assert main(["parity"]) == 0
    assert seen == [["mlp", "--backends", "keras_torch", "--quiet"], ["--all"]]


def test_parity_refuses_to_certify_the_reference_against_itself(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["parity", "mlp", "--backends", f"torch,{REFERENCE}"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.startswith(
        f"twinbench: error: --backends names the reference backend '{REFERENCE}'"
    )


def test_the_old_analysis_spelling_still_reports_errors_in_one_line(tmp_path):
    proc = subprocess.run(
        [sys.executable, "-m", "analysis", str(tmp_path)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("analysis: error: ") and proc.stderr.count("\n") == 1


def test_the_committed_reference_page_is_what_the_parsers_say():
    committed = (REPO_ROOT / reference.PAGE_PATH).read_text()
    assert committed == reference.page(), (
        f"regenerate it: python -m twinbench.cli.reference > {reference.PAGE_PATH}"
    )
    for name in commands.COMMANDS:
        assert f"\n## twinbench {name}\n" in committed


def test_python_m_twinbench_cli_is_the_twinbench_command():
    """It was 'a package and cannot be directly executed' (issue 45)."""
    proc = subprocess.run(
        [sys.executable, "-m", "twinbench.cli", "--help"],
        cwd=REPO_ROOT, capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("usage: twinbench <command>")
    assert all(f"  {name} " in proc.stdout for name in commands.COMMANDS)


def test_the_installed_command_finds_the_benchmarks_of_the_checkout_it_runs_in(monkeypatch, capsys):
    """The installed `twinbench` (its sys.path holds its bin/, not the working directory) said
    'none here (they ship with the checkout)' in a checkout whose benchmarks/ held twelve."""
    from twinbench.cli import bench

    real = bench.importlib.util.find_spec
    monkeypatch.setattr(
        bench.importlib.util,
        "find_spec",
        lambda name, *a: None if name == bench.PACKAGE else real(name, *a),
    )
    monkeypatch.setattr(bench, "WORK_ROOT", REPO_ROOT)  # run from the checkout
    assert "overhead" in bench.available()
    with pytest.raises(SystemExit):
        main(["bench", "nosuch"])
    err = capsys.readouterr().err
    assert "overhead" in err and "none" not in err


def test_a_misspelt_command_or_parity_model_is_answered_with_its_nearest_spelling(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["reprot"])
    assert exit_.value.code == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("twinbench: error: unknown command 'reprot'; did you mean report? ")
    with pytest.raises(SystemExit):
        main(["parity", "gtp"])
    assert "unknown model 'gtp'; did you mean gpt? choose one of:" in capsys.readouterr().err
